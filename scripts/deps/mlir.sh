#!/usr/bin/env bash
# Installs Debian's LLVM/MLIR tools: by default version 22 (mlir-opt-22, mlir-translate-22,
# llc-22, clang-22); `mlir.sh 19` installs MLIR 19 (mlir-opt-19, mlir-translate-19) as well,
# used by `LLVM_VERSION=19 tests/mlir/lower.sh`. On Debian 12 (bookworm) the packages come from
# the bookworm-security suite: 1:22.1.8-1~deb12u1 and 1:19.1.7-3~deb12u1. Idempotent: does
# nothing when the tools are present. Prints the versions of the tools.
set -euo pipefail
sudo=""
[[ $(id -u) == 0 ]] || sudo="sudo"

install() { # install PACKAGE... (apt-get update first if the index lacks them)
    if ! apt-cache policy "$1" | grep -q 'Candidate: [0-9]'; then
        $sudo apt-get update -qq
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}

tools=(mlir-opt-22 mlir-translate-22 llc-22 clang-22)
missing=0
for t in "${tools[@]}"; do command -v "$t" >/dev/null || missing=1; done
[[ $missing == 0 ]] || install mlir-22-tools llvm-22 clang-22 libmlir-22
for version in "$@"; do
    [[ $version == 22 ]] && continue
    command -v "mlir-opt-$version" >/dev/null || install "mlir-$version-tools"
    tools+=("mlir-opt-$version" "mlir-translate-$version")
done
for t in "${tools[@]}"; do
    printf '%s: %s\n' "$t" "$("$t" --version 2>&1 | grep -m1 -i version)"
done
