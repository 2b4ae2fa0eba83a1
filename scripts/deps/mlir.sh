#!/usr/bin/env bash
# Installs Debian's LLVM/MLIR 22 tools (mlir-opt-22, mlir-translate-22, llc-22, clang-22).
# On Debian 12 (bookworm) the packages come from the bookworm-security suite
# (version 1:22.1.8-1~deb12u1). Idempotent: does nothing when the tools are present.
# Prints the versions of the tools.
set -euo pipefail
tools=(mlir-opt-22 mlir-translate-22 llc-22 clang-22)
missing=0
for t in "${tools[@]}"; do command -v "$t" >/dev/null || missing=1; done
if [[ $missing == 1 ]]; then
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    if ! apt-cache policy mlir-22-tools | grep -q 'Candidate: [0-9]'; then
        $sudo apt-get update -qq
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        mlir-22-tools llvm-22 clang-22 >&2
fi
for t in "${tools[@]}"; do
    printf '%s: %s\n' "$t" "$("$t" --version 2>&1 | grep -m1 -i version)"
done
