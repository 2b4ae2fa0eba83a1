// Bug: the host uploads 100 of the 128 elements the kernel then scales.
#include "check.h"

__global__ void scale(const float* in, float* out, float factor) {
    out[threadIdx.x] = factor * in[threadIdx.x];  // expect: uninitialized read
}

int main() {
    float host[128];
    for (int i = 0; i < 128; i++) host[i] = i;
    float *in, *out;
    cudaMalloc(&in, sizeof(host));
    cudaMalloc(&out, sizeof(host));
    cudaMemcpy(in, host, 100 * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<1, 128>>>(in, out, 0.5f);
    report("uninit_partial", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
