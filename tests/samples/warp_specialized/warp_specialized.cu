// Warp specialization with named barriers: in each block, one producer warp streams tiles of
// a matrix into a double-buffered shared-memory ring while four consumer warps reduce them,
// the two roles handing buffers over with bar.arrive / bar.sync on named barriers (ids 1-4,
// 160 threads), as in hand-written pipelined kernels (inline PTX). Each block computes row
// sums and row maxima of its rows. Default: 8192 rows of 1024 floats.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(ans)                                                                    \
    do {                                                                                   \
        cudaError_t code_ = (ans);                                                         \
        if (code_ != cudaSuccess) {                                                        \
            fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code_), __FILE__, \
                    __LINE__);                                                             \
            exit(code_);                                                                   \
        }                                                                                  \
    } while (0)

constexpr int kCols = 1024;
constexpr int kRowsPerTile = 4;
constexpr int kConsumers = 4; // warps
constexpr int kThreads = 32 * (kConsumers + 1);

__device__ __forceinline__ void namedSync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void namedArrive(int id, int count) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Barriers: FULL0/1 (ids 1, 2): buffer b holds a tile; EMPTY0/1 (ids 3, 4): buffer b is free.
__global__ void __launch_bounds__(kThreads)
    rowStats(const float *__restrict__ in, int rows, float *__restrict__ sums,
             float *__restrict__ maxima) {
    __shared__ float ring[2][kRowsPerTile][kCols];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tiles = rows / kRowsPerTile;
    const int mine = (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x); // this block's tiles
    if (warp == kConsumers) {
        // Producer: fill buffer b, announce it full, wait until it is empty again.
        for (int t = blockIdx.x, k = 0; t < tiles; t += gridDim.x, ++k) {
            int b = k & 1;
            if (k >= 2) namedSync(3 + b, kThreads);
            const float4 *src = reinterpret_cast<const float4 *>(in + size_t(t) * kRowsPerTile * kCols);
            float4 *dst = reinterpret_cast<float4 *>(&ring[b][0][0]);
            for (int i = lane; i < kRowsPerTile * kCols / 4; i += 32) dst[i] = src[i];
            __threadfence_block();
            namedArrive(1 + b, kThreads);
        }
    } else {
        // Consumers: warp w reduces row w of the tile.
        for (int t = blockIdx.x, k = 0; t < tiles; t += gridDim.x, ++k) {
            int b = k & 1;
            namedSync(1 + b, kThreads);
            float s = 0.f, m = -INFINITY;
            for (int c = lane; c < kCols; c += 32) {
                float v = ring[b][warp][c];
                s += v;
                m = fmaxf(m, v);
            }
            for (int o = 16; o > 0; o >>= 1) {
                s += __shfl_xor_sync(0xffffffffu, s, o);
                m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
            }
            if (lane == 0) {
                sums[t * kRowsPerTile + warp] = s;
                maxima[t * kRowsPerTile + warp] = m;
            }
            // Free the buffer only when the producer will fill it again.
            if (k + 2 < mine) namedArrive(3 + b, kThreads);
        }
    }
}

int main(int argc, char **argv) {
    const int rows = (argc > 1 ? atoi(argv[1]) : 8192) / kRowsPerTile * kRowsPerTile;
    std::vector<float> in(size_t(rows) * kCols);
    unsigned s = 41;
    for (auto &v : in) v = float(int((s = s * 1664525u + 1013904223u) >> 22) - 512) / 64.f;
    float *dIn, *dSums, *dMax;
    CUDA_CHECK(cudaMalloc(&dIn, in.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dSums, rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dMax, rows * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dIn, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = std::min(2 * sms, rows / kRowsPerTile);
    rowStats<<<blocks, kThreads>>>(dIn, rows, dSums, dMax);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> sums(rows), maxima(rows);
    CUDA_CHECK(cudaMemcpy(sums.data(), dSums, rows * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(maxima.data(), dMax, rows * sizeof(float), cudaMemcpyDeviceToHost));
    // Values are multiples of 1/64 below 8: every partial sum is exact in float.
    int wrong = 0;
    double total = 0;
    for (int r = 0; r < rows; ++r) {
        float sum = 0.f, m = -INFINITY;
        for (int c = 0; c < kCols; ++c) sum += in[size_t(r) * kCols + c], m = std::max(m, in[size_t(r) * kCols + c]);
        wrong += sums[r] != sum || maxima[r] != m;
        total += sums[r];
    }
    printf("rows %d of %d floats, 1 producer and %d consumer warps per block\n", rows, kCols,
           kConsumers);
    printf("row sums and maxima wrong: %d, total %.4f\n", wrong, total);
    CUDA_CHECK(cudaFree(dIn));
    CUDA_CHECK(cudaFree(dSums));
    CUDA_CHECK(cudaFree(dMax));
    printf("warp_specialized: %s\n", wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
}
