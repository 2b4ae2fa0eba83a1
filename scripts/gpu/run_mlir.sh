#!/usr/bin/env bash
# Run on the GPU machine: checks the expected output (// CHECK: lines) of the MLIR programs in
# tests/mlir/ against real CUDA, using the reference mgpu* implementation tests/mlir/mgpu_cuda.c
# (driver API through dlopen, upstream semantics) and tests/mlir/print_memref.c (MLIR's memref
# printer without the LLVM libraries).
#
# The program objects are made on a machine with clang-22 (tests/mlir/lower.sh writes
# target/mlir/NAME.o, an ignored path): carry target/mlir to the GPU machine. Needs a C compiler
# and cuda.h (from $CUDA_HOME, /usr/local/cuda, or next to nvcc).
#   OUT=/some/dir scripts/gpu/run_mlir.sh [NAME...]
# async_execute is left out (it needs libmlir_async_runtime, which needs libLLVM).
# Writes $OUT/NAME.stdout / NAME.stderr per program, $OUT/summary.txt, and a tar of them all.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:?set OUT to an output directory}"
here="$root/tests/mlir"
obj="$root/target/mlir"
mkdir -p "$OUT/mlir"
CC="${CC:-cc}"

inc=""
for dir in "${CUDA_HOME:-}/include" /usr/local/cuda/include \
    "$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/bin/nvcc)")/../include"; do
    [[ -e "$dir/cuda.h" ]] && { inc="$dir"; break; }
done
[[ -n "$inc" ]] || { echo "run_mlir.sh: cuda.h not found (set CUDA_HOME)" >&2; exit 1; }
$CC -O2 -Wall -c -I"$inc" "$here/mgpu_cuda.c" -o "$OUT/mlir/mgpu_cuda.o" || exit 1
$CC -O2 -Wall -c "$here/print_memref.c" -o "$OUT/mlir/print_memref.o" || exit 1

if [[ $# -gt 0 ]]; then
    programs=("$@")
else
    programs=()
    for f in "$here"/*.mlir; do
        name="$(basename "$f" .mlir)"
        [[ $name == async_execute ]] || programs+=("$name")
    done
fi

passed=0
failed=0
: >"$OUT/mlir/summary.txt"
for name in "${programs[@]}"; do
    if [[ ! -e "$obj/$name.o" ]]; then
        echo "$name: FAIL (target/mlir/$name.o missing: run tests/mlir/lower.sh and carry target/mlir)" \
            | tee -a "$OUT/mlir/summary.txt"
        failed=$((failed + 1))
        continue
    fi
    $CC "$obj/$name.o" "$OUT/mlir/mgpu_cuda.o" "$OUT/mlir/print_memref.o" -ldl -lpthread \
        -o "$OUT/mlir/$name" || { echo "$name: FAIL (link)" | tee -a "$OUT/mlir/summary.txt"; failed=$((failed + 1)); continue; }
    # concurrent_kernels hangs if the two streams do not run concurrently: hence the timeout.
    timeout 60 "$OUT/mlir/$name" >"$OUT/mlir/$name.stdout" 2>"$OUT/mlir/$name.stderr"
    rc=$?
    if [[ $rc == 0 ]] && python3 "$here/check_output.py" "$here/$name.mlir" "$OUT/mlir/$name.stdout" \
        >/dev/null 2>>"$OUT/mlir/$name.stderr"; then
        echo "$name: ok$( [[ -s $OUT/mlir/$name.stderr ]] && echo ' (stderr not empty)')" \
            | tee -a "$OUT/mlir/summary.txt"
        passed=$((passed + 1))
    else
        echo "$name: FAIL (exit $rc)" | tee -a "$OUT/mlir/summary.txt"
        failed=$((failed + 1))
    fi
    rm -f "$OUT/mlir/$name"
done
rm -f "$OUT/mlir/"*.o
echo "mlir-gpu: $passed passed, $failed failed" | tee -a "$OUT/mlir/summary.txt"
tar -C "$OUT" -czf "$OUT/mlir-gpu-results.tar.gz" mlir && rm -rf "$OUT/mlir"
[[ $failed == 0 ]]
