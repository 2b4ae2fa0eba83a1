// Blelloch up-sweep/down-sweep in shared memory with bank-conflict-avoiding padding, two
// elements per thread, recursive over the block sums.
#include "../common/helpers.h"
#include "scan.h"

#define LOG_BANKS 5
#define PAD(i) ((i) >> LOG_BANKS)
constexpr int kThreads = 512, kPerBlock = 2 * kThreads;

__global__ void scanBlocks(const unsigned *in, unsigned *out, unsigned *blockSums, int n) {
    __shared__ unsigned tile[kPerBlock + kPerBlock / 32];
    int base = blockIdx.x * kPerBlock, t = threadIdx.x;
    int ai = t, bi = t + kThreads;
    tile[ai + PAD(ai)] = base + ai < n ? in[base + ai] : 0;
    tile[bi + PAD(bi)] = base + bi < n ? in[base + bi] : 0;
    int offset = 1;
    for (int d = kPerBlock >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            tile[b + PAD(b)] += tile[a + PAD(a)];
        }
        offset <<= 1;
    }
    if (t == 0) {
        int last = kPerBlock - 1 + PAD(kPerBlock - 1);
        if (blockSums) blockSums[blockIdx.x] = tile[last];
        tile[last] = 0;
    }
    for (int d = 1; d < kPerBlock; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
            unsigned x = tile[a + PAD(a)];
            tile[a + PAD(a)] = tile[b + PAD(b)];
            tile[b + PAD(b)] += x;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = tile[ai + PAD(ai)];
    if (base + bi < n) out[base + bi] = tile[bi + PAD(bi)];
}

__global__ void addBlockSums(unsigned *out, const unsigned *sums, int n) {
    int i = blockIdx.x * kPerBlock + threadIdx.x;
    unsigned add = sums[blockIdx.x];
    if (i < n) out[i] += add;
    if (i + kThreads < n) out[i + kThreads] += add;
}

void exclusiveScan(const unsigned *in, unsigned *out, int n) {
    int blocks = (n + kPerBlock - 1) / kPerBlock;
    if (blocks == 1) {
        scanBlocks<<<1, kThreads>>>(in, out, nullptr, n);
        checkCudaErrors(cudaGetLastError());
        return;
    }
    unsigned *sums, *scannedSums;
    checkCudaErrors(cudaMalloc(&sums, blocks * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&scannedSums, blocks * sizeof(unsigned)));
    scanBlocks<<<blocks, kThreads>>>(in, out, sums, n);
    checkCudaErrors(cudaGetLastError());
    exclusiveScan(sums, scannedSums, blocks);
    addBlockSums<<<blocks, kThreads>>>(out, scannedSums, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaFree(sums));
    checkCudaErrors(cudaFree(scannedSums));
}
