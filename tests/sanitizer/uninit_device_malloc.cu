// Bug: a kernel reads a buffer it took from the device heap with malloc() before writing it
// (device-side malloc memory holds garbage on a GPU).
#include "check.h"

__global__ void scratch_sum(int* out) {
    __shared__ int* scratch;
    if (threadIdx.x == 0) scratch = (int*)malloc(32 * sizeof(int));
    __syncthreads();
    int v = scratch[threadIdx.x];  // expect: uninitialized read
    atomicAdd(out, v);
    __syncthreads();
    if (threadIdx.x == 0) free(scratch);
}

int main() {
    int* out;
    cudaMalloc(&out, sizeof(int));
    cudaMemset(out, 0, sizeof(int));
    scratch_sum<<<1, 32>>>(out);
    report("uninit_device_malloc", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return 0;
}
