#!/usr/bin/env bash
# Rebuilds corpus/clang/*.ptx from corpus/clang/src/kernels.cu with clang 22's CUDA front end,
# without a CUDA SDK (-nocudainc -nocudalib, declarations in corpus/clang/src/cuda_min.h), and
# records every command in corpus/clang/COMMANDS.txt. Needs clang-22 (scripts/deps/mlir.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out=corpus/clang
src=$out/src/kernels.cu
log=$out/COMMANDS.txt
rm -f "$out"/*.ptx
echo "# $(clang-22 --version | head -1)" >"$log"

run() { # run OUTPUT ARGS...
    local output="$1"
    shift
    clang-22 --cuda-device-only -nocudainc -nocudalib -S "$@" "$src" -o "$out/$output"
    echo "clang-22 --cuda-device-only -nocudainc -nocudalib -S $* $src -o $out/$output" >>"$log"
}

run kernels.sm_80.O2.ptx --cuda-gpu-arch=sm_80 -O2 -Xclang -target-feature -Xclang +ptx80
run kernels.sm_80.O0.ptx --cuda-gpu-arch=sm_80 -O0 -Xclang -target-feature -Xclang +ptx80
run kernels.sm_90.O3.ptx --cuda-gpu-arch=sm_90 -O3 -Xclang -target-feature -Xclang +ptx80
run kernels.sm_80.lineinfo.ptx --cuda-gpu-arch=sm_80 -O2 -gline-tables-only -ffile-compilation-dir=. \
    -Xclang -target-feature -Xclang +ptx80
echo "clang corpus rebuilt: $(ls "$out"/*.ptx | wc -l) files" >&2
