#!/usr/bin/env bash
# On a GPU machine (nvcc and compute-sanitizer on PATH or under $CUDA_HOME/bin, no cargo): the
# sanitizer suite of tests/sanitizer/ under NVIDIA's compute-sanitizer, for the side-by-side
# table of docs/sanitizer.md. Builds each program as scripts/test.d/sanitizer.sh does
# (-lineinfo -g -cudart shared, sm_90 unless ARCH is set), runs it under memcheck with leak
# checking, under initcheck and under synccheck, and prints per program what each found: its first report
# (kind and source line) and its error summary. Logs stay under $OUT (default
# target/sanitizer-gpu/).
#   bash scripts/gpu/sanitizer.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/sanitizer
out="${OUT:-$root/target/sanitizer-gpu}"
mkdir -p "$out"
tool_dir="${CUDA_HOME:-/usr/local/cuda}/bin"
find_tool() { command -v "$1" 2>/dev/null || { [[ -x $tool_dir/$1 ]] && echo "$tool_dir/$1"; } || true; }
nvcc="$(find_tool nvcc)"
sanitizer="$(find_tool compute-sanitizer)"
[[ -n $nvcc && -n $sanitizer ]] || { echo "needs nvcc and compute-sanitizer (set CUDA_HOME)" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$sanitizer" --version | tail -n1

# first_report LOG: the first error's kind and its `at … in FILE:LINE` location, on one line.
first_report() {
    awk '/^========= (Invalid|Uninitialized|Program hit|Leaked|Misaligned|Barrier|Race|Error)/ && !kind {kind=$0; next}
         kind && /^=========     at / && !where {where=$0}
         END {sub(/^========= /, "", kind); sub(/^=========     at /, "", where); print kind (where ? " @ " where : "")}' "$1"
}
summary() { grep -o "ERROR SUMMARY: [0-9]* error[s]*" "$1" | tail -n1 || echo "no summary"; }

printf '%-20s | %-8s | %s\n' program check "finding (first report) / summary"
for source in $src/*.cu; do
    name="$(basename "$source" .cu)"
    "$nvcc" -lineinfo -g -cudart shared -arch="${ARCH:-sm_90}" -o "$out/$name" "$source"
    "$sanitizer" --tool memcheck --leak-check full --error-exitcode 1 "$out/$name" \
        >"$out/$name.memcheck.log" 2>&1 || true
    "$sanitizer" --tool initcheck --error-exitcode 1 "$out/$name" \
        >"$out/$name.initcheck.log" 2>&1 || true
    "$sanitizer" --tool synccheck --error-exitcode 1 "$out/$name" \
        >"$out/$name.synccheck.log" 2>&1 || true
    for check in memcheck initcheck synccheck; do
        log="$out/$name.$check.log"
        printf '%-20s | %-8s | %s / %s\n' "$name" "$check" "$(first_report "$log")" "$(summary "$log")"
    done
done
# Every failing assert's line, as the GPU printed it.
grep -h "Assertion" "$out/assert_threads.memcheck.log" || true
