// 256-bin histogram of 64 MiB of bytes (the size of CUDA's histogram sample): each block counts
// into a shared-memory histogram with atomicAdd, reading four bytes per 32-bit load in a
// grid-stride loop, then adds its bins to the global histogram with atomicAdd. Checked bin by
// bin against the host. Usage: perf_histogram [bytes]
#include <vector>
#include "perf_common.h"

constexpr int kBins = 256, kThreads = 256;

__global__ void histogram(const unsigned *words, unsigned *bins, int wordCount) {
    __shared__ unsigned local[kBins];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < wordCount; i += blockDim.x * gridDim.x) {
        unsigned word = words[i];
        atomicAdd(&local[word & 0xff], 1u);
        atomicAdd(&local[(word >> 8) & 0xff], 1u);
        atomicAdd(&local[(word >> 16) & 0xff], 1u);
        atomicAdd(&local[word >> 24], 1u);
    }
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main(int argc, char **argv) {
    int bytes = (int)argOr(argc, argv, 1, 64 << 20) & ~3;
    int wordCount = bytes / 4;
    std::vector<unsigned> words(wordCount), bins(kBins), expected(kBins);
    Lcg rng(256);
    for (int i = 0; i < wordCount; ++i) {
        // Skewed bytes, so some bins are hot as in real data.
        unsigned a = rng.next();
        words[i] = a & (a >> 3);
        for (int k = 0; k < 4; ++k) expected[(words[i] >> (8 * k)) & 0xff]++;
    }
    unsigned *dWords, *dBins;
    CHECK(cudaMalloc(&dWords, bytes));
    CHECK(cudaMalloc(&dBins, kBins * sizeof(unsigned)));
    CHECK(cudaMemcpy(dWords, words.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dBins, 0, kBins * sizeof(unsigned)));
    int multiprocessors = 0;
    CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    histogram<<<multiprocessors * 4, kThreads>>>(dWords, dBins, wordCount);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(bins.data(), dBins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int wrong = 0;
    unsigned long long total = 0;
    for (int b = 0; b < kBins; ++b) wrong += bins[b] != expected[b], total += bins[b];
    printf("histogram of %d bytes: %llu counted, %d bins wrong\n", bytes, total, wrong);
    return finish("perf_histogram", wrong == 0 && total == (unsigned long long)bytes);
}
