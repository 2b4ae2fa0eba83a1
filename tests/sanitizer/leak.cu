// Bug: the second buffer is never freed.
#include "check.h"

__global__ void square(float* data) {
    data[threadIdx.x] = data[threadIdx.x] * data[threadIdx.x];
}

int main() {
    float *kept, *lost;
    cudaMalloc(&kept, 64 * sizeof(float));
    cudaMalloc(&lost, 4096);  // expect: leak
    cudaMemset(kept, 0, 64 * sizeof(float));
    square<<<1, 64>>>(kept);
    report("leak", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(kept);
    return 0;
}
