#!/usr/bin/env bash
# Benchmark of the CPU device's compiled code (docs/cpu-compiled.md): builds the C baselines
# with gcc -O2 and the benchmark example, runs both (one thread each; the C baselines three
# times, keeping each kernel's lowest median) and prints one table with every ratio. Not part
# of scripts/test: it takes about a minute and its figures are timings.
# BENCH_PROFILE=release (default dev: the generated code is the same, only the interpreter
# column is slower in dev).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${BENCH_PROFILE:-dev}
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
gcc -O2 -o "$out/native" crates/chevron-cpu-jit/examples/bench/native_baseline.c
cargo build --quiet --profile "$profile" -p chevron-cpu-jit --example cpu_compiled_bench
# The C baselines run in well under a second: three runs, each kernel's lowest median kept, so
# a burst of another process on the shared machine does not make the ratios look better.
for run in 1 2 3; do "$out/native"; done |
    awk '!($1 in best) || $2 < best[$1] { best[$1] = $2 } END { for (k in best) print k, best[k] }' \
    > "$out/native.txt"
dir=target/$([[ $profile == dev ]] && echo debug || echo "$profile")/examples
"$dir/cpu_compiled_bench" "$out/native.txt"
