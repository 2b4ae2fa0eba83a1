// Bug: each thread reads its neighbour's element of a shared tile without a __syncthreads()
// after the writes: the neighbour may not have written it yet (a read-after-write race).
#include "check.h"

__global__ void rotate(const float* in, float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = in[t];
    out[t] = tile[(t + 1) % 64];  // expect: shared-memory race
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 64 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    rotate<<<1, 64>>>(in, out);
    report("race_shared_missing_sync", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
