#!/usr/bin/env bash
# Installs the CUDA 13.0 runtime headers (PyPI nvidia-cuda-runtime==13.0.96: cuda_fp16.h,
# cuda_bf16.h, cooperative_groups.h, ...; nvidia-cuda-crt==13.0.88: crt/*.h, needed by mma.h)
# and CCCL's (nvidia-cuda-cccl==13.0.85: <nv/target>, needed by cooperative_groups.h) into
# .deps/ of the repository and prints the include directories (runtime, CCCL, CCCL/cccl),
# space-separated, for NVRTC's --include-path. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="$root/.deps/cuda-headers"
inc="$target/nvidia/cu13/include"
if [[ ! -e "$inc/cuda_fp16.h" || ! -e "$inc/crt/mma.h" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
        --target "$target" "nvidia-cuda-runtime==13.0.96" "nvidia-cuda-crt==13.0.88" >&2
fi
[[ -e "$inc/cuda_fp16.h" ]] || { echo "cuda_headers.sh: cuda_fp16.h not found" >&2; exit 1; }
cccl_target="$root/.deps/cuda-cccl"
cccl_inc="$cccl_target/nvidia/cu13/include"
if [[ ! -e "$cccl_inc/nv/target" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$cccl_target" "nvidia-cuda-cccl==13.0.85" >&2
fi
[[ -e "$cccl_inc/nv/target" ]] || { echo "cuda_headers.sh: nv/target not found" >&2; exit 1; }
echo "$inc $cccl_inc $cccl_inc/cccl"
