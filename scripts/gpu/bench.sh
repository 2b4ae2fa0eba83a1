#!/usr/bin/env bash
# On a GPU machine: launch overhead of chevron (checked, unchecked) against raw cuLaunchKernel,
# measured in one process on cuda:0 (the first device of CHEVRON_DEVICES), RUNS times (default
# 5); prints each run, then the median enqueue ratio of each (kernel, variant) over the runs
# against its target (exit status 1 when one is missed).
#
# Build on the development machine and carry the binary over:
#   cargo build --release -p chevron-bench --example 06-bench
#   mkdir -p carry/bin && cp target/release/examples/06-bench carry/bin/
# The same baselines' GPU tests: `cargo test -p chevron-bench --test gpu -- --ignored`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${BENCH_BIN:-carry/bin/06-bench}
[ -x "$bin" ] || { echo "no benchmark binary at $bin (see the header of $0)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for run in $(seq "${RUNS:-5}"); do
  echo "== run $run"
  CHEVRON_DEVICES=${CHEVRON_DEVICES:-cuda:0} "$bin" | tee -a "$out"
done
echo "== medians over the runs"
python3 scripts/gpu/median_ratios.py rust <"$out"
