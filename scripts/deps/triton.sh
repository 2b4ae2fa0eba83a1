#!/usr/bin/env bash
# Installs Triton 3.9.0 (PyPI wheel, with its bundled ptxas) into .deps/triton of the repository,
# without dependencies (compiling kernels ahead of time needs neither torch nor a GPU), and prints
# the directory to put on PYTHONPATH. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="$root/.deps/triton"
if ! PYTHONPATH="$target" python3 -c 'import triton; assert triton.__version__ == "3.9.0"' 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target" \
        "triton==3.9.0" >&2
fi
echo "$target"
