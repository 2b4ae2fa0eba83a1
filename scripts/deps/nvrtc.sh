#!/usr/bin/env bash
# Installs NVRTC 13.0 (PyPI wheel nvidia-cuda-nvrtc==13.0.88) into .deps/nvrtc of the repository,
# with the CUDA headers snippets may #include (nvidia-cuda-runtime, nvidia-cuda-crt and
# nvidia-cuda-cccl 13.0; they land in the include/ directory beside NVRTC's lib/, where chevron's
# JIT looks for them), and prints the directory holding libnvrtc.so.13 and
# libnvrtc-builtins.so.13.0.
# Idempotent: does nothing when the libraries and headers are already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="$root/.deps/nvrtc"
version="13.0.88"

find_libdir() {
    local lib
    lib="$(find "$target" -name 'libnvrtc.so.13' -print -quit 2>/dev/null || true)"
    [[ -n "$lib" ]] || return 1
    local dir
    dir="$(dirname "$lib")"
    [[ -e "$dir/libnvrtc-builtins.so.13.0" ]] || return 1
    [[ -e "$dir/../include/cuda_fp16.h" && -d "$dir/../include/cccl" ]] || return 1
    echo "$dir"
}

if ! dir="$(find_libdir)"; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
        --target "$target" "nvidia-cuda-nvrtc==$version" "nvidia-cuda-runtime==13.0.96" \
        "nvidia-cuda-crt==13.0.88" "nvidia-cuda-cccl==13.0.85" >&2
    dir="$(find_libdir)" || { echo "nvrtc.sh: libnvrtc.so.13 not found after install" >&2; exit 1; }
    # Only the runtime wheel's headers are wanted: its libcudart must not shadow chevron's own.
    rm -rf "$dir"/libcudart* "$dir"/libcudadevrt.a "$dir/cmake"
fi
echo "$dir"
