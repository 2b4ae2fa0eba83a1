// Control: a histogram with atomics; nothing to report.
#include "check.h"

__global__ void histogram(const int* keys, int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bins[keys[i] % 16], 1);
    }
}

int main() {
    int n = 1000;
    int *keys, *bins;
    cudaMalloc(&keys, n * sizeof(int));
    cudaMalloc(&bins, 16 * sizeof(int));
    int host[1000];
    for (int i = 0; i < n; i++) host[i] = i * 7;
    cudaMemcpy(keys, host, sizeof(host), cudaMemcpyHostToDevice);
    cudaMemset(bins, 0, 16 * sizeof(int));
    histogram<<<4, 256>>>(keys, bins, n);
    int counts[16];
    cudaMemcpy(counts, bins, sizeof(counts), cudaMemcpyDeviceToHost);
    int total = 0;
    for (int b = 0; b < 16; b++) total += counts[b];
    bool ok = report("ok_atomics", cudaGetLastError(), cudaDeviceSynchronize());
    printf("total %d\n", total);
    cudaFree(keys);
    cudaFree(bins);
    return ok && total == n ? 0 : 1;
}
