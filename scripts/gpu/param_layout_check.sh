#!/usr/bin/env bash
# Run on a GPU machine: checks chevron's kernel parameter layouts (from PTX, and from cubins'
# .nv.info) against the CUDA driver's own (cuFuncGetParamInfo, driver 12.4+) for the corpus.
#   OUT=/some/dir scripts/gpu/param_layout_check.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
cargo build -q -p chevron-cli
files=(corpus/nvrtc/compute_80/*.ptx corpus/nvrtc/compute_90/*.ptx corpus/nvcc/*.ptx
       corpus/cubin/*.cubin corpus/nvcc/*.cubin corpus/nvcc/*.fatbin)
python3 scripts/gpu/param_layout_check.py target/debug/chevron "${files[@]}" 2>&1 |
    tee "$OUT/param_layout_check.log"
