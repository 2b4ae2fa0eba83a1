#!/usr/bin/env bash
# The host memory of a long trace on the CPU device: LAUNCHES (default 10,000,000) launches of an
# empty kernel with the trace recording into FILE (default /dev/null: memory without the disk),
# printing the peak resident set at each tenth and at the end (crates/chevron/examples/
# trace-memory.rs). A benchmark, not a test: about 10 minutes for 10M launches on 2 busy cores.
# On a GPU (device durations from timing events): CHEVRON_DEVICES=cuda:0 scripts/trace-memory.sh
# Usage: scripts/trace-memory.sh [LAUNCHES] [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-workspace -q
cd crates/chevron
CHEVRON_DEVICES="${CHEVRON_DEVICES:-cpu}" exec ../../target/debug/examples/trace-memory "${1:-10000000}" "${2:-/dev/null}"
