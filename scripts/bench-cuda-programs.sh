#!/usr/bin/env bash
# Times the CUDA programs of tests/cudart/perf_*.cu at their GPU versions' default problem sizes
# under `chevron exec --device cpu` and prints one table: program, wall seconds (median of
# BENCH_RUNS, default 1), whether its result matched the host reference, and its summary line.
# Not part of scripts/test: its figures are timings (the target is 30 s each on two cores).
# CHEVRON_CPU_THREADS and the other CHEVRON_CPU_* variables pass through; BENCH_PROGRAMS="a b"
# picks programs (names without perf_); BENCH_TIMEOUT (default 300) seconds per run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-workspace -q   # the CLI and the driver library, sharing cargo test's build
dir="$(scripts/build-cuda-programs)"
chevron=${CHEVRON_BIN:-target/debug/chevron}
runs=${BENCH_RUNS:-1}
programs=${BENCH_PROGRAMS:-$(cd tests/cudart && ls perf_*.cu | sed 's/^perf_//; s/\.cu$//')}
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), CHEVRON_CPU_THREADS=${CHEVRON_CPU_THREADS:-default}"
printf '| %-14s | %9s | %-6s | %s\n' program seconds result summary
printf '|%s|%s|%s|%s\n' "----------------" "-----------" "--------" "---------"
for name in $programs; do
    times=()
    result=ok
    for _ in $(seq "$runs"); do
        start=$(date +%s.%N)
        if timeout "${BENCH_TIMEOUT:-300}" "$chevron" exec --device cpu "$dir/perf_$name" >"$log" 2>&1; then
            tail -n1 "$log" | grep -q "^perf_$name: ok$" || result=WRONG
        else
            result="rc=$?"
        fi
        times+=("$(echo "$(date +%s.%N) - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    summary="$(grep -v "^perf_$name:" "$log" | tail -n1 | cut -c1-100)"
    printf '| %-14s | %9.2f | %-6s | %s\n' "$name" "$median" "$result" "$summary"
done
