#!/usr/bin/env bash
# Installs a CPU-only CUDA 13.0 compiler toolchain from PyPI into DIR (default: .deps/cuda of the
# repository):
# nvcc, ptxas, fatbinary, nvlink (nvidia-cuda-nvcc==13.0.88), cicc and libdevice
# (nvidia-nvvm==13.0.88), runtime headers (nvidia-cuda-runtime==13.0.96), CCCL
# (nvidia-cuda-cccl==13.0.85) and crt/ headers (nvidia-cuda-crt==13.0.88). All wheels share
# the nvidia/cu13 prefix, which is the layout nvcc.profile expects. Prints the bin directory
# (holding nvcc and ptxas). Idempotent. Usage: cuda_nvcc.sh [DIR]
# nvcc.profile looks for libraries in lib64/ (the wheels ship lib/): lib64 links to lib, and lib/
# gets a libcudart.so link beside the wheel's libcudart.so.13, so nvcc links -cudart shared and
# static (its default) with no extra -L.
# nvcc needs a host C++ compiler (g++) on PATH even for -ptx/-cubin.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${1:-$root/.deps/cuda}"
top="$target/nvidia/cu13"
if [[ ! -x "$top/bin/nvcc" || ! -x "$top/nvvm/bin/cicc" || ! -e "$top/include/cuda_runtime.h" \
      || ! -e "$top/include/cccl/cuda/std/type_traits" || ! -e "$top/include/crt/host_config.h" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target" \
        "nvidia-cuda-nvcc==13.0.88" "nvidia-nvvm==13.0.88" "nvidia-cuda-runtime==13.0.96" \
        "nvidia-cuda-cccl==13.0.85" "nvidia-cuda-crt==13.0.88" >&2
fi
ln -sfn libcudart.so.13 "$top/lib/libcudart.so"
[[ -e $top/lib64 ]] || ln -s lib "$top/lib64"
"$top/bin/nvcc" --version >/dev/null || { echo "cuda_nvcc.sh: nvcc does not run" >&2; exit 1; }
echo "$top/bin"
