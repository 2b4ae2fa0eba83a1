// Sum of 2^24 integers (the size of CUDA's reduction sample) with warp shuffles: each thread
// adds a grid-stride share, warps reduce with __shfl_down_sync, warp 0 reduces the warp sums,
// and a second launch reduces the block sums. Repeated; checked against the host sum.
// Usage: perf_reduce [n] [repetitions]
#include <vector>
#include "perf_common.h"

constexpr int kThreads = 256, kBlocks = 1024;

__global__ void reduceShuffle(const int *in, long long *out, int n) {
    __shared__ long long warpSums[kThreads / 32];
    long long value = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) value += in[i];
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = value;
    __syncthreads();
    if (threadIdx.x < 32) {
        value = threadIdx.x < kThreads / 32 ? warpSums[threadIdx.x] : 0;
        for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
        if (threadIdx.x == 0) out[blockIdx.x] = value;
    }
}

__global__ void reduceBlockSums(const long long *in, long long *out, int n) {
    __shared__ long long warpSums[kThreads / 32];
    long long value = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) value += in[i];
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = value;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kThreads / 32; ++w) value += warpSums[w];
        *out = value;
    }
}

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 1 << 24);
    int repetitions = (int)argOr(argc, argv, 2, 10);
    std::vector<int> host(n);
    Lcg rng(24);
    long long expected = 0;
    for (int i = 0; i < n; ++i) expected += host[i] = (int)(rng.next() % 2001) - 1000;
    int *in;
    long long *blockSums, *total, result = 0;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&blockSums, kBlocks * sizeof(long long)));
    CHECK(cudaMalloc(&total, sizeof(long long)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    for (int r = 0; r < repetitions; ++r) {
        reduceShuffle<<<kBlocks, kThreads>>>(in, blockSums, n);
        CHECK_LAUNCH();
        reduceBlockSums<<<1, kThreads>>>(blockSums, total, kBlocks);
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpy(&result, total, sizeof(result), cudaMemcpyDeviceToHost));
    printf("sum of %d integers x %d: %lld (host %lld)\n", n, repetitions, result, expected);
    return finish("perf_reduce", result == expected);
}
