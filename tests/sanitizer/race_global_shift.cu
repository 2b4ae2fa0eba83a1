// Bug: an in-place shift where each thread reads the element to its right and writes its own:
// the last thread of a block reads the first element of the next block, which that block may
// already have overwritten (a write-after-read race between blocks).
#include "check.h"

__global__ void shift_left(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float next = i + 1 < n ? data[i + 1] : 0.0f;
    __syncthreads();
    data[i] = next;  // expect: global-memory race
}

int main() {
    float* data;
    cudaMalloc(&data, 1024 * sizeof(float));
    cudaMemset(data, 0, 1024 * sizeof(float));
    shift_left<<<4, 256>>>(data, 1024);
    report("race_global_shift", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(data);
    return 0;
}
