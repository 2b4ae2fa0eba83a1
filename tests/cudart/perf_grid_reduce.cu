// Sum of 2^22 unsigned integers in one cooperative launch (cudaLaunchCooperativeKernel): every
// block reduces a grid-stride share with warp shuffles, writes its partial sum, synchronizes
// the whole grid with cooperative_groups' grid.sync(), and block 0 adds the partials. The grid
// is as large as the occupancy API allows (blocks per multiprocessor x multiprocessors).
// Checked against the host sum. Usage: perf_grid_reduce [n] [repetitions]
#include <cooperative_groups.h>
#include <vector>
#include "perf_common.h"

namespace cg = cooperative_groups;
constexpr int kThreads = 256;

__device__ unsigned long long blockSum(unsigned long long value) {
    __shared__ unsigned long long warpSums[kThreads / 32];
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (lane == 0) warpSums[warp] = value;
    __syncthreads();
    value = threadIdx.x < kThreads / 32 ? warpSums[threadIdx.x] : 0;
    if (warp == 0)
        for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    __syncthreads();
    return value;
}

__global__ void gridReduce(const unsigned *in, unsigned long long *partial,
                           unsigned long long *total, int n) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long value = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) value += in[i];
    value = blockSum(value);
    if (threadIdx.x == 0) partial[blockIdx.x] = value;
    grid.sync();
    if (blockIdx.x == 0) {
        value = 0;
        for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) value += partial[b];
        value = blockSum(value);
        if (threadIdx.x == 0) *total = value;
    }
}

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 1 << 22);
    int repetitions = (int)argOr(argc, argv, 2, 1);
    int device = 0, cooperative = 0, multiprocessors = 0, perMultiprocessor = 0;
    CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, gridReduce, kThreads, 0));
    if (!cooperative || perMultiprocessor == 0) {
        printf("no cooperative launch (attribute %d, %d blocks per multiprocessor)\n", cooperative,
               perMultiprocessor);
        return finish("perf_grid_reduce", false);
    }
    int blocks = multiprocessors * perMultiprocessor;
    std::vector<unsigned> host(n);
    Lcg rng(33);
    unsigned long long expected = 0;
    for (int i = 0; i < n; ++i) expected += host[i] = rng.next() >> 8;
    unsigned *in;
    unsigned long long *partial, *total, result = 0;
    CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&partial, blocks * sizeof(unsigned long long)));
    CHECK(cudaMalloc(&total, sizeof(unsigned long long)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    void *args[] = {&in, &partial, &total, &n};
    for (int r = 0; r < repetitions; ++r)
        CHECK(cudaLaunchCooperativeKernel((void *)gridReduce, blocks, kThreads, args, 0, 0));
    CHECK(cudaMemcpy(&result, total, sizeof(result), cudaMemcpyDeviceToHost));
    printf("grid reduction of %d elements on %d blocks x %d: %llu (host %llu)\n", n, blocks,
           repetitions, result, expected);
    return finish("perf_grid_reduce", result == expected);
}
