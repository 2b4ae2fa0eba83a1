// Control: the last-block reduction of the CUDA samples: each block writes its partial sum,
// makes it visible with __threadfence() and counts itself with atomicInc; the last block to
// arrive reads every partial sum. Fence and atomic order the blocks; nothing to report.
#include "check.h"

__device__ unsigned int arrived = 0;

__global__ void sum(const float* in, float* partial, float* total) {
    __shared__ float block_sum[128];
    __shared__ bool last;
    block_sum[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    for (int stride = 64; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) block_sum[threadIdx.x] += block_sum[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum[0];
        __threadfence();
        last = atomicInc(&arrived, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        float s = 0.0f;
        for (int b = 0; b < gridDim.x; b++) s += partial[b];
        *total = s;
    }
}

int main() {
    float *in, *partial, *total;
    float host[8 * 128];
    for (int i = 0; i < 8 * 128; i++) host[i] = 1.0f;
    cudaMalloc(&in, sizeof(host));
    cudaMalloc(&partial, 8 * sizeof(float));
    cudaMalloc(&total, sizeof(float));
    cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
    sum<<<8, 128>>>(in, partial, total);
    float result = 0.0f;
    cudaMemcpy(&result, total, sizeof(float), cudaMemcpyDeviceToHost);
    bool ok = report("ok_race_threadfence", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(partial);
    cudaFree(total);
    return ok && result == 1024.0f ? 0 : 1;
}
