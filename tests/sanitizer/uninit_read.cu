// Bug: the input buffer is allocated but never written before the kernel reads it (a GPU reads
// garbage; the CPU device's zero-filled memory would hide it without initcheck).
#include "check.h"

__global__ void sum_pairs(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[2 * i] + in[2 * i + 1];  // expect: uninitialized read
    }
}

int main() {
    int n = 128;
    int *in, *out;
    cudaMalloc(&in, 2 * n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    sum_pairs<<<1, 128>>>(in, out, n);
    report("uninit_read", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
