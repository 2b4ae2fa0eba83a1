#!/usr/bin/env bash
# On a GPU machine: graph replay against eager launches and a raw CUDA graph (256 small kernels
# x 100 repetitions, medians per kernel; argument update cost per node; automatic replay's host
# time per held launch), run GRAPH_BENCH_RUNS times (default 5): each run's table, then the
# medians of the runs (eager / explicit / automatic / raw graph per kernel, set_args per node).
# Then the graph and automatic-replay conformance tests on CUDA.
#
# Build on the development machine and carry the binaries over:
#   cargo build --release -p chevron-bench --example 07-graph-bench
#   cargo test --release -p chevron --test conformance --no-run   # prints the test binary path
#   mkdir -p carry/bin && cp target/release/examples/07-graph-bench carry/bin/
#   cp <that test binary> carry/bin/conformance
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=${GRAPH_BENCH_BIN:-carry/bin/07-graph-bench}
tests=${CONFORMANCE_BIN:-carry/bin/conformance}
[ -x "$bench" ] || { echo "no benchmark binary at $bench (see the header of $0)" >&2; exit 2; }
export CHEVRON_DEVICES=${CHEVRON_DEVICES:-cuda:0}
"$bench" runs "${GRAPH_BENCH_RUNS:-5}"
if [ -x "$tests" ]; then
    CHEVRON_REPO=$PWD "$tests" --test-threads 1 graph
else
    echo "(no conformance binary at $tests: graph tests on CUDA skipped)" >&2
fi
