#!/usr/bin/env bash
# On a GPU machine: runs chevron's conformance suite whole, RUNS times in a row (default 3), on
# every device found (each CUDA GPU and the CPU device), the tests marked
# `#[ignore = "needs a CUDA GPU"]` included, nothing skipped or run apart (the fault test faults
# in a child process of its own). Then once more on the CUDA devices only. Prints one line per
# run and exits 1 when any run failed.
#
# The test binary is built on the development machine and carried over:
#   cargo test -p chevron --test conformance --no-run   # prints the executable's path
#   mkdir -p carry/bin && cp <that path> carry/bin/conformance
# (or set CONFORMANCE_BIN). Where cargo is present and no binary is given, it is built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CHEVRON_REPO=$PWD
bin=${CONFORMANCE_BIN:-carry/bin/conformance}
if [ ! -x "$bin" ] && command -v cargo >/dev/null; then
  bin=$(cargo test -p chevron --test conformance --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "conformance":
        print(m["executable"])')
fi
[ -x "$bin" ] || { echo "no conformance binary at $bin (see the header of $0)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L
status=0
runs=${RUNS:-3}
for run in $(seq "$runs"); do
  echo "== conformance run $run of $runs: every device, GPU tests included, whole"
  if "$bin" --include-ignored; then echo "conformance run $run: passed"
  else echo "conformance run $run: FAILED"; status=1; fi
done
echo "== conformance: CUDA devices only (CHEVRON_DEVICES=cuda), whole"
CHEVRON_DEVICES=cuda "$bin" --include-ignored || status=1
exit $status
