#!/usr/bin/env bash
# On a GPU machine: run the differential cases on cuda:0 with a carried release build of the
# CLI (carry/bin/chevron) and leave the outputs under $OUT/diff-cuda.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${CHEVRON_BIN:-carry/bin/chevron}
python3 tests/differential/run.py --chevron "$bin" --device cuda:0 --out "${OUT:-/tmp}/diff-cuda"
