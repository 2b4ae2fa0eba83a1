#!/usr/bin/env bash
# Run on the GPU machine: checks the expected output (// CHECK: lines) of the MLIR programs in
# tests/mlir/ against real CUDA. The programs are the committed assembly tests/mlir/asm/*.s
# (and asm-llvm19/), linked by tests/mlir/run_programs.sh with the reference mgpu*
# implementation tests/mlir/mgpu_cuda.c (CUDA driver API through dlopen, upstream semantics).
# Needs only a C compiler and cuda.h ($CUDA_HOME, /usr/local/cuda, or next to nvcc).
#   OUT=/some/dir scripts/gpu/run_mlir.sh [NAME...]
# async_execute is skipped unless MLIR's async runtime library is installed.
# Writes $OUT/mlir-gpu-results.tar.gz (per-program stdout/stderr and the summary).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:?set OUT to an output directory}"
CC="${CC:-cc}"
mkdir -p "$OUT/mlir"

inc=""
for dir in "${CUDA_HOME:-}/include" /usr/local/cuda/include \
    "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/bin/nvcc)")/../include"; do
    [[ -e "$dir/cuda.h" ]] && { inc="$dir"; break; }
done
[[ -n "$inc" ]] || { echo "run_mlir.sh: cuda.h not found (set CUDA_HOME)" >&2; exit 1; }
$CC -O2 -Wall -shared -fPIC -I"$inc" "$root/tests/mlir/mgpu_cuda.c" -ldl -lpthread \
    -o "$OUT/mlir/libmgpu_cuda.so" || exit 1

status=0
for version in 22 19; do
    suffix=""
    [[ $version == 22 ]] || suffix="-llvm$version"
    names=("$@")
    [[ $version == 19 && $# -gt 0 ]] && continue
    LLVM_VERSION=$version OUT_DIR="$OUT/mlir/bin$suffix" \
        bash "$root/tests/mlir/run_programs.sh" --lib "$OUT/mlir/libmgpu_cuda.so" "${names[@]}" \
        2>&1 | tee "$OUT/mlir/summary$suffix.txt"
    [[ ${PIPESTATUS[0]} == 0 ]] || status=1
    # keep the outputs, not the binaries
    find "$OUT/mlir/bin$suffix" -type f ! -name '*.stdout' ! -name '*.stderr' -delete
done
rm -f "$OUT/mlir/libmgpu_cuda.so"
tar -C "$OUT" -czf "$OUT/mlir-gpu-results.tar.gz" mlir && rm -rf "$OUT/mlir"
exit $status
