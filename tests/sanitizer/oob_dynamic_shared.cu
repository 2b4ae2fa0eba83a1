// Bug: the launch gives 128 bytes of dynamic shared memory; the kernel uses one float per thread
// of a 64-thread block (256 bytes).
#include "check.h"

__global__ void stage(const float* in, float* out) {
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = in[threadIdx.x];  // expect: shared-memory overrun
    __syncthreads();
    out[threadIdx.x] = buffer[63 - threadIdx.x];
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    stage<<<1, 64, 128>>>(in, out);
    report("oob_dynamic_shared", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
