// Bug: a stencil reads its left neighbour without a guard: thread 0 reads the element before
// the start of the buffer.
#include "check.h"

__global__ void difference(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] - in[i - 1];  // expect: out-of-bounds access
    }
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 256 * sizeof(float));
    cudaMalloc(&out, 256 * sizeof(float));
    cudaMemset(in, 0, 256 * sizeof(float));
    difference<<<1, 256>>>(in, out, 256);
    report("oob_global_negative", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
