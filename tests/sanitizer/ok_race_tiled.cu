// Control: the tiled sum of race_shared_loop_war.cu with both barriers; nothing to report.
#include "check.h"

__global__ void tiled_sum(const float* in, float* out, int tiles) {
    __shared__ float tile[128];
    float sum = 0.0f;
    for (int k = 0; k < tiles; k++) {
        tile[threadIdx.x] = in[(blockIdx.x * tiles + k) * 128 + threadIdx.x];
        __syncthreads();
        sum += tile[127 - threadIdx.x];
        __syncthreads();
    }
    out[blockIdx.x * 128 + threadIdx.x] = sum;
}

int main() {
    float *in, *out;
    cudaMalloc(&in, 2 * 4 * 128 * sizeof(float));
    cudaMalloc(&out, 2 * 128 * sizeof(float));
    cudaMemset(in, 0, 2 * 4 * 128 * sizeof(float));
    tiled_sum<<<2, 128>>>(in, out, 4);
    bool ok = report("ok_race_tiled", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return ok ? 0 : 1;
}
