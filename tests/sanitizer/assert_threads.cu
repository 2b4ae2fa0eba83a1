// Bug: an input with three negative values; every thread that reads one fails its assert.
#include <cassert>
#include "check.h"

__global__ void check_positive(const int* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(values[i] > 0);  // expect: assertion failed
    }
}

int main() {
    int host[128];
    for (int i = 0; i < 128; i++) host[i] = i + 1;
    host[5] = -1;
    host[40] = -2;
    host[97] = -3;
    int* values;
    cudaMalloc(&values, sizeof(host));
    cudaMemcpy(values, host, sizeof(host), cudaMemcpyHostToDevice);
    check_positive<<<4, 32>>>(values, 128);
    report("assert_threads", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(values);
    return 0;
}
