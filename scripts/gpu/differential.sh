#!/usr/bin/env bash
# On a GPU machine: run the differential cases on cuda:0 with a carried release build of the
# CLI (carry/bin/chevron) and leave the outputs under $OUT/diff-cuda (copy that folder to
# tests/differential/reference/h200/ to make it the reference CI compares the CPU device with).
# Then check the GPU's outputs against the host expectations (which proves the expectations),
# and run the minimal reproductions of CPU-device divergences, which must all pass on a GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${CHEVRON_BIN:-carry/bin/chevron}
out="${OUT:-/tmp}/diff-cuda"
python3 tests/differential/run.py --chevron "$bin" --device cuda:0 --out "$out"
rm -rf "$out/inputs"  # regenerated from the seeds on every run; not part of a reference
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/DEVICE.txt" 2>/dev/null || true
status=0
echo "== host expectations on cuda:0"
python3 tests/differential/verify.py "$out" | tee "$out/verify.txt" || status=1
echo "== repros on cuda:0"
python3 tests/differential/repros/check.py --chevron "$bin" --device cuda:0 | tee "$out/repros.txt" || status=1
echo "== fidelity programs (scripts/gpu/fidelity.sh) on cuda:0"
if [[ -x carry/fidelity/chevron ]]; then
    OUT="${OUT:-/tmp}/fidelity" scripts/gpu/fidelity.sh || status=1
else
    echo "skipped: no carry/fidelity (run scripts/gpu/fidelity.sh --prepare where cargo is)"
    status=1
fi
exit $status
