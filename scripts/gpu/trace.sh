#!/usr/bin/env bash
# On a GPU machine: instrumentation and tracing on cuda:0 (docs/tracing.md).
# - every corpus PTX file, instrumented with every hook (and with the built-in `blocks` tool),
#   is loaded by the driver, whose PTX compiler must accept each rewritten kernel;
# - a tool's entry/exit hooks count exactly grid x block threads;
# - the cost per launch of tracing on, and of `blocks` instrumentation per kernel;
# - `chevron bench` with tracing off (compare with scripts/gpu/bench.sh from before the change);
# - a traced `chevron run` with CHEVRON_INSTRUMENT=blocks gives a launch, 4 block events and the
#   launch's device time from CUDA events (CHEVRON_TRACE and `--trace` alike); the summary
#   counts 4 thread blocks and no record is lost.
#
# Build on the development machine and carry the binaries over:
#   cargo build --release -p chevron --example 07-trace
#   cargo build --release -p chevron-bench --example 06-bench
#   cargo build --release -p chevron-cli    # separately: with `--example`, `-p chevron-cli` in the
#                                           # same command builds no chevron binary
#   mkdir -p carry/bin && cp target/release/examples/07-trace target/release/examples/06-bench \
#       target/release/chevron carry/bin/
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=carry/bin
for b in 07-trace 06-bench chevron; do
    [ -x "$bin/$b" ] || { echo "no $bin/$b (see the header of $0)" >&2; exit 2; }
done
export CHEVRON_DEVICES=${CHEVRON_DEVICES:-cuda:0}
unset CHEVRON_TRACE CHEVRON_INSTRUMENT
command -v nvidia-smi >/dev/null && nvidia-smi -L
status=0
echo "== instrumented corpus, hook counts, overhead (07-trace)"
"$bin/07-trace" corpus 20000 | grep -v '^skip' || status=1
echo "== launch overhead with tracing off (06-bench)"
"$bin/06-bench" || status=1
echo "== CHEVRON_TRACE + CHEVRON_INSTRUMENT=blocks chevron run --grid 4"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
CHEVRON_TRACE="$out/t.json" CHEVRON_INSTRUMENT=blocks "$bin/chevron" run \
    corpus/nvcc/elementwise.sm_80.ptx saxpy --grid 4 --block 64 --arg f32:2 \
    --arg 'f32[256]=iota' --arg 'f32[256]=fill:1' --arg u32:256 >/dev/null || status=1
# The block records must be read while the driver is alive (0 block events fails the check).
python3 scripts/test.d/trace_check.py "$out/t.json" --launches saxpy=1 --grid 4,1,1 \
    --block 64,1,1 --blocks 4 --device-runs saxpy=1 \
    && echo "trace with 4 block events and the launch's device time (CUDA events): ok" || status=1
echo "== CHEVRON_INSTRUMENT=blocks chevron run --trace --grid 4"
CHEVRON_INSTRUMENT=blocks "$bin/chevron" run corpus/nvcc/elementwise.sm_80.ptx saxpy --grid 4 \
    --block 64 --arg f32:2 --arg 'f32[256]=iota' --arg 'f32[256]=fill:1' --arg u32:256 \
    --trace "$out/run.json" >/dev/null 2>"$out/run.stderr" || status=1
python3 scripts/test.d/trace_check.py "$out/run.json" --launches saxpy=1 --blocks 4 \
    --device-runs saxpy=1 && echo "chevron run --trace with 4 block events: ok" || status=1
if grep -q "blocks saxpy: 1 launches, 4 thread blocks" "$out/run.stderr" \
    && ! grep -q "could not be read" "$out/run.stderr"; then
    echo "instrumentation summary (4 thread blocks, no record lost): ok"
else
    cat "$out/run.stderr" >&2
    status=1
fi
exit $status
