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
[[ -n ${BENCH_DEFAULT_ONLY:-} ]] ||
    cargo build --quiet --profile "$profile" -p chevron-cpu-jit --example cpu_compiled_bench
# The C baselines run in well under a second: three runs, each kernel's lowest median kept, so
# a burst of another process on the shared machine does not make the ratios look better.
for run in 1 2 3; do "$out/native"; done |
    awk '!($1 in best) || $2 < best[$1] { best[$1] = $2 } END { for (k in best) print k, best[k] }' \
    > "$out/native.txt"
dir=target/$([[ $profile == dev ]] && echo debug || echo "$profile")/examples
[[ -n ${BENCH_DEFAULT_ONLY:-} ]] || "$dir/cpu_compiled_bench" "$out/native.txt"

# The default mode as a user runs it: one `chevron run --json` per kernel (first launch, compile
# included, `elapsed_ms` = launch + wait), CHEVRON_CPU_THREADS=1 against gcc -O2 on one thread,
# median of BENCH_RUNS (default 3) runs; BENCH_BASELINE_RUNS (default 1) runs of
# BENCH_BASELINE_CHEVRON (another build of the CLI, e.g. main's, built once in its own folder)
# when set; CHEVRON_CPU_THREADS=2
# against 1 for the kernels that must scale; POCL (pocl-opencl-icd, one thread) on the same
# kernels as OpenCL C when `scripts/bench/pocl_bench` can be built (ocl-icd-opencl-dev).
# BENCH_DEFAULT_ONLY=1 skips the table above.
chevron=${CHEVRON_BIN:-target/debug/chevron}
if [[ $profile == dev ]]; then
    scripts/build-workspace --quiet   # cargo test's build: no second copy of the workspace
else
    cargo build --quiet --profile "$profile" -p chevron-cli
    chevron=${CHEVRON_BIN:-target/$profile/chevron}
fi
nvcc="$(bash scripts/deps/cuda_nvcc.sh)/nvcc"
"$nvcc" -ptx -O3 -arch=sm_75 -o "$out/user.ptx" crates/chevron-cpu-jit/examples/bench/user_kernels.cu
python3 scripts/bench/default_mode.py --chevron "$chevron" --native "$out/native.txt" \
    --ptx crates/chevron-cpu-jit/examples/bench/kernels.ptx --user-ptx "$out/user.ptx" \
    --baseline "${BENCH_BASELINE_CHEVRON:-}" --runs "${BENCH_RUNS:-3}" \
    --baseline-runs "${BENCH_BASELINE_RUNS:-1}" \
    --opencl crates/chevron-cpu-jit/examples/bench/kernels.cl --out "$out"
