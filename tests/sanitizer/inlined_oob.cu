// Bug: an inlined helper reads past the end; the report names the helper's line and the call.
#include "check.h"

__device__ __forceinline__ float at(const float* p, int i) {
    return p[i];  // expect: out-of-bounds access
}

__global__ void shift(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = at(in, i + 1);  // inlined at
    }
}

int main() {
    int n = 256;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    cudaMemset(in, 0, n * sizeof(float));
    shift<<<1, 256>>>(in, out, n);
    report("inlined_oob", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
