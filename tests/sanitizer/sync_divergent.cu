// Bug: __syncthreads() in both branches of a condition that splits the block: the two halves
// wait at different barriers (undefined in CUDA).
#include "check.h"

__global__ void halves(float* data, int rounds) {
    __shared__ float tile[64];
    float value = data[threadIdx.x];
    if (threadIdx.x < 32) {
        tile[threadIdx.x] = value;
        __syncthreads();
        data[threadIdx.x] = tile[63 - threadIdx.x];
    } else {
        for (int r = 0; r < rounds; r++) value = value * 0.5f + r;
        tile[threadIdx.x] = value;
        __syncthreads();  // expect: barrier error
        data[threadIdx.x] = tile[63 - threadIdx.x] + value;
    }
}

int main() {
    float* data;
    cudaMalloc(&data, 64 * sizeof(float));
    cudaMemset(data, 0, 64 * sizeof(float));
    halves<<<1, 64>>>(data, 3);
    report("sync_divergent", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(data);
    return 0;
}
