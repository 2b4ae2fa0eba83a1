// Bug: a buffer freed before the kernel that reads it is launched.
#include "check.h"

__global__ void scale(const float* in, float* out, float factor) {
    out[threadIdx.x] = in[threadIdx.x] * factor;  // expect: use after free
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    cudaFree(in);
    scale<<<1, 64>>>(in, out, 2.0f);
    report("use_after_free", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return 0;
}
