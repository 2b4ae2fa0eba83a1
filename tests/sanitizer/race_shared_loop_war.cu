// Bug: a tiled sum that reuses its shared tile every iteration with one __syncthreads() only:
// the next iteration's writes may overwrite the tile while other threads still read it (a
// write-after-read race; the second __syncthreads() at the end of the loop is missing).
#include "check.h"

__global__ void tiled_sum(const float* in, float* out, int tiles) {
    __shared__ float tile[128];
    float sum = 0.0f;
    for (int k = 0; k < tiles; k++) {
        tile[threadIdx.x] = in[k * 128 + threadIdx.x];  // expect: shared-memory race
        __syncthreads();
        sum += tile[127 - threadIdx.x];
    }
    out[threadIdx.x] = sum;
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 4 * 128 * sizeof(float));
    cudaMalloc(&out, 128 * sizeof(float));
    cudaMemset(in, 0, 4 * 128 * sizeof(float));
    tiled_sum<<<1, 128>>>(in, out, 4);
    report("race_shared_loop_war", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
