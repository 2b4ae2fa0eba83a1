#!/usr/bin/env bash
# Run on a GPU machine: links the -rdc PTX pair of the corpus with chevron-ptx's linker (both
# orders, NVRTC and nvcc callers) and has the CUDA driver JIT, load and run each result
# (scripts/gpu/run_linked_rdc.py: rdc_reset, rdc_apply over 1000 elements, rdc_read_counter).
#   OUT=/some/dir scripts/gpu/link_rdc.sh
# Needs cargo (to build the linker) unless LINKED_DIR names a folder of linked*.ptx made elsewhere
# with `cargo run -p chevron-ptx --example ptx_link -- A.ptx B.ptx`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
if [[ -n "${LINKED_DIR:-}" ]]; then
    cp "$LINKED_DIR"/linked*.ptx "$OUT"/
else
    cargo build -q -p chevron-ptx --example ptx_link
    tool=target/debug/examples/ptx_link
    n80=corpus/nvrtc/compute_80
    n90=corpus/nvrtc/compute_90
    "$tool" "$n80/rdc_callee.ptx" "$n80/rdc_caller.ptx" >"$OUT/linked_callee_first.sm_80.ptx"
    "$tool" "$n80/rdc_caller.ptx" "$n80/rdc_callee.ptx" >"$OUT/linked_caller_first.sm_80.ptx"
    "$tool" "$n90/rdc_caller.ptx" "$n90/rdc_callee.ptx" >"$OUT/linked_caller_first.sm_90.ptx"
    "$tool" corpus/nvcc/rdc_caller.sm_80.ptx "$n80/rdc_callee.ptx" >"$OUT/linked_nvcc_caller.sm_80.ptx"
fi
status=0
for ptx in "$OUT"/linked*.ptx; do
    python3 scripts/gpu/run_linked_rdc.py "$ptx" 2>&1 | tee -a "$OUT/link_rdc.log" || status=1
done
exit $status
