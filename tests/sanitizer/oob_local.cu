// Bug: a per-thread array indexed by a value from the host far beyond its 16 elements.
#include "check.h"

__global__ void histogram_local(const int* keys, int* out, int stride) {
    int counts[16];
    for (int k = 0; k < 16; k++) counts[k] = 0;
    int key = keys[threadIdx.x] * stride;
    counts[key] += 1;  // expect: local-memory overrun
    out[threadIdx.x] = counts[threadIdx.x % 16];
}

int main() {
    int *keys, *out;
    cudaMalloc(&keys, 32 * sizeof(int));
    cudaMalloc(&out, 32 * sizeof(int));
    int host[32];
    for (int i = 0; i < 32; i++) host[i] = i;
    cudaMemcpy(keys, host, sizeof(host), cudaMemcpyHostToDevice);
    histogram_local<<<1, 32>>>(keys, out, 1 << 20);
    report("oob_local", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(keys);
    cudaFree(out);
    return 0;
}
