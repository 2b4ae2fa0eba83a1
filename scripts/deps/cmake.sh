#!/usr/bin/env bash
# Installs CMake from PyPI (cmake==3.31.6) into DIR (default: .deps/cmake of the repository) and
# prints the directory holding the `cmake` executable. Idempotent. Usage: cmake.sh [DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${1:-$root/.deps/cmake}"
bin="$target/cmake/data/bin"
if [[ ! -x $bin/cmake ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target" \
        "cmake==3.31.6" >&2
fi
"$bin/cmake" --version >/dev/null || { echo "cmake.sh: cmake does not run" >&2; exit 1; }
echo "$bin"
