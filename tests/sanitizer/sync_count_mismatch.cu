// Bug: two halves of a block wait at named barrier 1 with different thread counts (128 here,
// 96 there): PTX requires every thread waiting at one barrier to give the same count.
#include "check.h"

__global__ void halves(float* data) {
    data[threadIdx.x] = threadIdx.x;
    if (threadIdx.x < 64) {
        asm volatile("bar.sync 1, 128;");
    } else {
        asm volatile("bar.sync 1, 96;");  // expect: barrier error
    }
    data[threadIdx.x] += 1.0f;
}

int main() {
    float* data;
    cudaMalloc(&data, 128 * sizeof(float));
    halves<<<1, 128>>>(data);
    report("sync_count_mismatch", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(data);
    return 0;
}
