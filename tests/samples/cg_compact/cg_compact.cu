// Stream compaction and a segmented word count with cooperative groups' collective helpers:
// cg::exclusive_scan and cg::inclusive_scan over thread_block_tile<32> (cooperative_groups/
// scan.h), cg::reduce (cooperative_groups/reduce.h) with cg::plus and cg::greater, tiles of 8
// from cg::tiled_partition with their own scans, and a block-level scan built from the warp
// scans in shared memory. Two passes keep the output order: per-block counts, a host-side
// scan, then the ordered scatter. Default 2^22 elements.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK_CUDA(call)                                                                   \
    do {                                                                                   \
        cudaError_t rc = (call);                                                           \
        if (rc != cudaSuccess) {                                                           \
            fprintf(stderr, "error %d (%s) in %s at line %d\n", int(rc),                  \
                    cudaGetErrorName(rc), __FILE__, __LINE__);                             \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

constexpr int kBlock = 256;
constexpr int kItems = 4; // per thread

__host__ __device__ inline bool keep(int v) { return (v % 3 == 0) || (v & 0x100); }

// The exclusive scan of `x` over the block, and the block's total, from warp scans.
__device__ int blockExclusiveScan(cg::thread_block block, int x, int &total) {
    __shared__ int warpTotals[kBlock / 32];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int inclusive = cg::inclusive_scan(warp, x);
    if (warp.thread_rank() == 31) warpTotals[warp.meta_group_rank()] = inclusive;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int t = warp.thread_rank() < kBlock / 32 ? warpTotals[warp.thread_rank()] : 0;
        int before = cg::exclusive_scan(warp, t);
        if (warp.thread_rank() < kBlock / 32) warpTotals[warp.thread_rank()] = before;
        int sum = cg::reduce(warp, t, cg::plus<int>());
        total = warp.shfl(sum, 0);
    }
    block.sync();
    int result = warpTotals[warp.meta_group_rank()] + inclusive - x;
    __shared__ int blockTotal;
    if (block.thread_rank() == 0) blockTotal = total;
    block.sync();
    total = blockTotal;
    return result;
}

// Pass 1: how many elements each block keeps.
__global__ void countKept(const int *__restrict__ in, int n, int *__restrict__ blockCounts) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ int warpCounts[kBlock / 32];
    int base = blockIdx.x * kBlock * kItems, count = 0;
    for (int k = 0; k < kItems; ++k) {
        int i = base + k * kBlock + threadIdx.x;
        count += i < n && keep(in[i]);
    }
    int warpCount = cg::reduce(warp, count, cg::plus<int>());
    if (warp.thread_rank() == 0) warpCounts[warp.meta_group_rank()] = warpCount;
    block.sync();
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int w = 0; w < kBlock / 32; ++w) sum += warpCounts[w];
        blockCounts[blockIdx.x] = sum;
    }
}

// Pass 2: each block writes its kept elements, in order, from its offset.
__global__ void scatterKept(const int *__restrict__ in, int n, const int *__restrict__ blockOffsets,
                            int *__restrict__ out) {
    cg::thread_block block = cg::this_thread_block();
    int base = blockIdx.x * kBlock * kItems, offset = blockOffsets[blockIdx.x];
    for (int k = 0; k < kItems; ++k) {
        int i = base + k * kBlock + threadIdx.x;
        int v = i < n ? in[i] : 0;
        int flag = i < n && keep(v), total;
        int at = blockExclusiveScan(block, flag, total);
        if (flag) out[offset + at] = v;
        offset += total;
    }
}

// Per tile of 8 threads: the running maximum (inclusive_scan with cg::greater) and each
// tile's sum, as a check of the sub-warp forms.
__global__ void tileScans(const int *__restrict__ in, int n, int *__restrict__ runningMax,
                          int *__restrict__ tileSums) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int m = cg::inclusive_scan(tile, v, cg::greater<int>());
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (i < n) runningMax[i] = m;
    if (tile.thread_rank() == 0 && i < n) tileSums[i / 8] = s;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    std::vector<int> in(n);
    unsigned s = 1;
    for (auto &v : in) v = int((s = s * 1664525u + 1013904223u) >> 12);
    const int perBlock = kBlock * kItems, blocks = (n + perBlock - 1) / perBlock;
    int *dIn, *dCounts, *dOffsets, *dOut, *dMax, *dSums;
    CHECK_CUDA(cudaMalloc(&dIn, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dCounts, blocks * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dOffsets, blocks * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dOut, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dMax, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&dSums, (n / 8 + 1) * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    countKept<<<blocks, kBlock>>>(dIn, n, dCounts);
    CHECK_CUDA(cudaGetLastError());
    std::vector<int> counts(blocks), offsets(blocks);
    CHECK_CUDA(cudaMemcpy(counts.data(), dCounts, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int kept = 0;
    for (int b = 0; b < blocks; ++b) offsets[b] = kept, kept += counts[b];
    CHECK_CUDA(cudaMemcpy(dOffsets, offsets.data(), blocks * sizeof(int), cudaMemcpyHostToDevice));
    scatterKept<<<blocks, kBlock>>>(dIn, n, dOffsets, dOut);
    CHECK_CUDA(cudaGetLastError());
    tileScans<<<(n + kBlock - 1) / kBlock, kBlock>>>(dIn, n, dMax, dSums);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<int> out(kept), runMax(n), sums(n / 8);
    CHECK_CUDA(cudaMemcpy(out.data(), dOut, kept * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(runMax.data(), dMax, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(sums.data(), dSums, (n / 8) * sizeof(int), cudaMemcpyDeviceToHost));

    std::vector<int> expected;
    for (int v : in)
        if (keep(v)) expected.push_back(v);
    bool compactOk = out == expected;
    size_t maxBad = 0, sumBad = 0;
    for (int i = 0; i < n; ++i) {
        int m = in[i];
        for (int j = i & ~7; j < i; ++j) m = std::max(m, in[j]);
        maxBad += runMax[i] != m;
    }
    for (int t = 0; t < n / 8; ++t) {
        int sum = 0;
        for (int j = 0; j < 8; ++j) sum += in[8 * t + j];
        sumBad += sums[t] != sum;
    }
    long long checksum = 0;
    for (size_t i = 0; i < out.size(); ++i) checksum = (checksum * 31 + out[i]) % 1000000007;
    printf("elements %d, kept %d (%s), checksum %lld\n", n, kept,
           compactOk ? "in order" : "WRONG", checksum);
    printf("tile<8> running max: %zu wrong, tile sums: %zu wrong\n", maxBad, sumBad);
    bool ok = compactOk && maxBad == 0 && sumBad == 0;
    CHECK_CUDA(cudaFree(dIn));
    CHECK_CUDA(cudaFree(dCounts));
    CHECK_CUDA(cudaFree(dOffsets));
    CHECK_CUDA(cudaFree(dOut));
    CHECK_CUDA(cudaFree(dMax));
    CHECK_CUDA(cudaFree(dSums));
    printf("cg_compact: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
