// Bug: a stencil reads the element before the first one (index -1).
#include "check.h"

__global__ void difference(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] - in[i - 1];  // expect: out-of-bounds access
    }
}

int main() {
    int n = 512;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    difference<<<2, 256>>>(in, out, n);
    report("oob_global_read", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
