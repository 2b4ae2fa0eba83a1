#!/usr/bin/env bash
# The C API of the incremental JIT (chevron_jit_*, tests/capi/jit.c) on the CPU device, with the
# project's NVRTC. About 5 s once libchevron is built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
CHEVRON_NVRTC="$(scripts/deps/nvrtc.sh)"
export CHEVRON_NVRTC CHEVRON_CACHE=off
scripts/build-workspace -q   # libchevron (chevron-capi), sharing cargo test's build
lib="$root/target/debug"
out="$root/target/capi"
mkdir -p "$out"
"${CC:-cc}" -std=c11 -O1 -Wall -Wextra -Werror -Iinclude tests/capi/jit.c -L"$lib" -lchevron \
    -Wl,-rpath,"$lib" -o "$out/jit"
CHEVRON_DEVICES=cpu "$out/jit"
