// Control: blocks count into a shared counter and then a global one with atomics, ordered by
// barriers; nothing to report.
#include "check.h"

__global__ void histogram(const int* values, int* bins, int n) {
    __shared__ int local[4];
    if (threadIdx.x < 4) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[values[i] & 3], 1);
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
    int *values, *bins;
    int host[1024];
    for (int i = 0; i < 1024; i++) host[i] = i;
    cudaMalloc(&values, sizeof(host));
    cudaMalloc(&bins, 4 * sizeof(int));
    cudaMemcpy(values, host, sizeof(host), cudaMemcpyHostToDevice);
    cudaMemset(bins, 0, 4 * sizeof(int));
    histogram<<<4, 256>>>(values, bins, 1024);
    int result[4] = {0};
    cudaMemcpy(result, bins, sizeof(result), cudaMemcpyDeviceToHost);
    bool ok = report("ok_race_atomics", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(values);
    cudaFree(bins);
    return ok && result[0] == 256 && result[3] == 256 ? 0 : 1;
}
