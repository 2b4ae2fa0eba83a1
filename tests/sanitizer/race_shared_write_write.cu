// Bug: every thread of the block stores its own index in one shared slot; which one is kept
// is undefined (a write-after-write race with different values).
#include "check.h"

__global__ void last_writer(int* out) {
    __shared__ int winner;
    winner = threadIdx.x;  // expect: shared-memory race
    __syncthreads();
    if (threadIdx.x == 0) *out = winner;
}

int main() {
    int* out;
    cudaMalloc(&out, sizeof(int));
    last_writer<<<1, 64>>>(out);
    report("race_shared_write_write", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return 0;
}
