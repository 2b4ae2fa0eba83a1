// Bug: a kernel writes its results to a buffer the host freed before launching it.
#include "check.h"

__global__ void fill(float* out, float value) {
    out[threadIdx.x] = value;  // expect: use after free
}

int main() {
    float *out, *kept;
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMalloc(&kept, 64 * sizeof(float));
    cudaFree(out);
    fill<<<1, 64>>>(out, 1.0f);
    report("use_after_free_write", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(kept);
    return 0;
}
