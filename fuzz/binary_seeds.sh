#!/usr/bin/env bash
# Seeds for the `binary` fuzz target: fatbins (PTX and cubin entries, uncompressed, LZ4- and
# Zstandard-compressed), cubins (sm_75..sm_90, -rdc and not) and a host object with an embedded
# fatbin, built with the nvcc 13.0 of scripts/deps/cuda_nvcc.sh from a small CUDA source, into
# the directory given (default fuzz/seeds/binary).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/fuzz/seeds/binary}"
bin="$("$root/scripts/deps/cuda_nvcc.sh")"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/k.cu" <<'CU'
__device__ int counter;
__constant__ float scale[4];
__device__ __noinline__ float twice(float v) { return 2.0f * v; }
extern "C" __global__ void __launch_bounds__(128) saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * twice(x[i]) * scale[i & 3] + y[i];
}
extern "C" __global__ void count(int *out)
{
    __shared__ int seen[32];
    seen[threadIdx.x & 31] = atomicAdd(&counter, 1);
    __syncthreads();
    out[threadIdx.x] = seen[(threadIdx.x + 1) & 31];
}
CU
cd "$work"
nvcc() { nice "$bin/nvcc" "$@"; }
nvcc -cubin -arch=sm_90 -o "$out/sm90.cubin" k.cu
nvcc -cubin -arch=sm_75 -o "$out/sm75.cubin" k.cu
nvcc -cubin -rdc=true -arch=sm_80 -o "$out/sm80-rdc.cubin" k.cu
nvcc -fatbin -gencode arch=compute_75,code=[sm_75,compute_75] -o "$out/default.fatbin" k.cu
nvcc -fatbin -arch=sm_90 -Xfatbin -compress-all -o "$out/compressed.fatbin" k.cu
nvcc -fatbin -arch=sm_90 -Xfatbin -compress-all -Xfatbin -compress-mode=speed -o "$out/speed.fatbin" k.cu
nvcc -fatbin -arch=sm_90 -Xfatbin -compress-mode=size -o "$out/zstd.fatbin" k.cu 2>/dev/null \
    || nvcc -fatbin -arch=sm_90 -o "$out/zstd.fatbin" k.cu
nvcc -fatbin -arch=sm_80 -Xfatbin -compress=false -o "$out/plain.fatbin" k.cu 2>/dev/null \
    || nvcc -fatbin -arch=sm_80 -o "$out/plain.fatbin" k.cu
nvcc -c -arch=sm_90 -o "$out/host.o" k.cu
ls -l "$out" >&2
