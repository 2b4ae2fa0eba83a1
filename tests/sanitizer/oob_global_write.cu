// Bug: the guard lets thread n write one element past the end of a cudaMalloc buffer.
#include "check.h"

__global__ void fill(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = i;  // expect: out-of-bounds access
    }
}

int main() {
    int n = 1000;
    int* out;
    cudaMalloc(&out, n * sizeof(int));
    fill<<<4, 256>>>(out, n);
    report("oob_global_write", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return 0;
}
