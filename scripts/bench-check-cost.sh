#!/usr/bin/env bash
# The cost of each sanitizer check on the CPU device (docs/sanitizer.md): saxpy (2^18
# elements), a 128x128 shared-memory tiled matmul and a 2^18-element shared-memory reduction
# (scripts/bench/check_cost.cu, nvcc -lineinfo) run under `chevron exec --device cpu` with the
# compiled executor (CHEVRON_CPU_EXEC=compiled), with no check and with each check alone. Each
# run prints the mean milliseconds of REPS launches after a warm-up; the table gives the median
# of RUNS rounds (each round runs every check once, in turn) and its ratio to the median without
# checks. initcheck, synccheck and racecheck run kernels in the interpreter (racecheck also runs
# the blocks one after another), so their ratio includes leaving the compiled executor.
#   scripts/bench-check-cost.sh [RUNS] [REPS]     (defaults 5 and 3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs="${1:-5}"
reps="${2:-3}"
out="$root/target/bench-check-cost"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
mkdir -p "$out/nvidia-lib"
ln -sf "$toolkit/lib/libcudart.so.13" "$out/nvidia-lib/libcudart.so"
scripts/build-workspace -q
program="$out/check_cost"
if [[ ! -e $program || scripts/bench/check_cost.cu -nt $program ]]; then
    "$bin/nvcc" -O2 -lineinfo -cudart shared -arch=sm_90 -L"$out/nvidia-lib" \
        -Xlinker -rpath -Xlinker "$toolkit/lib" -o "$program" scripts/bench/check_cost.cu
fi
chevron="$root/target/debug/chevron"
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf '%-10s | %-9s | %12s | %8s\n' kernel check "median ms" ratio
checks=(none memcheck racecheck initcheck synccheck leaks)
for kernel in saxpy matmul reduction; do
    for check in "${checks[@]}"; do : >"$out/$kernel.$check"; done
    # Rounds alternate the checks, so a change in the machine's load falls on all of them alike.
    for _ in $(seq "$runs"); do
        for check in "${checks[@]}"; do
            CHEVRON_CPU_EXEC=compiled "$chevron" exec --device cpu --check="$check" \
                "$program" "$kernel" "$reps" 2>"$out/$kernel.$check.stderr" | tail -n1 \
                >>"$out/$kernel.$check"
        done
    done
    base=""
    for check in "${checks[@]}"; do
        ms="$(median <"$out/$kernel.$check")"
        [[ -n $base ]] || base="$ms"
        printf '%-10s | %-9s | %12.2f | %7.1fx\n' "$kernel" "$check" "$ms" \
            "$(awk -v a="$ms" -v b="$base" 'BEGIN {print a / b}')"
    done
done
