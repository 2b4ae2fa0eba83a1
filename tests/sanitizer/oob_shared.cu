// Bug: a 256-byte shared tile written with one element per thread of a 96-thread block:
// threads 64..95 write past the tile. Another kernel of the module has 2048 bytes of
// shared memory, which must not widen this kernel's bound.
#include "check.h"

__global__ void big(float* out) {
    __shared__ float scratch[512];
    scratch[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = scratch[511 - threadIdx.x];
}

__global__ void small(float* out) {
    __shared__ float tile[64];
    tile[threadIdx.x] = 1.0f;  // expect: shared-memory overrun
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x % 64];
}

int main() {
    float* out;
    cudaMalloc(&out, 512 * sizeof(float));
    big<<<1, 512>>>(out);
    cudaDeviceSynchronize();
    small<<<1, 96>>>(out);
    report("oob_shared", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return 0;
}
