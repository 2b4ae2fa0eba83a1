#!/usr/bin/env bash
# The whole conformance suite again with automatic graph replay on for every stream
# (CHEVRON_AUTO_GRAPH=1): replaying repeated launch sequences must not change any result,
# error or fault report. The auto_graph tests run too: they switch replay per stream and count
# replays exactly, which other tests' threads (stream creation, deferred frees) must not
# disturb. Runs the conformance test binary scripts/test builds (a second or so of run time
# on the CPU device).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
CHEVRON_AUTO_GRAPH=1 scripts/run-workspace-tests conformance -- -q
