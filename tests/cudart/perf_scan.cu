// Exclusive prefix sum of 2^22 unsigned integers (the size of CUDA's scan samples), the way
// shuffle-based scans are written: each thread scans four elements, warps scan their threads'
// totals with __shfl_up_sync, the block scans its warps' totals, and the block sums are scanned
// recursively and added back. Checked element by element against the host.
// Usage: perf_scan [n] [repetitions]
#include <vector>
#include "perf_common.h"

constexpr int kThreads = 256, kPerThread = 4, kPerBlock = kThreads * kPerThread;

__device__ unsigned warpInclusiveScan(unsigned value) {
    int lane = threadIdx.x & 31;
    for (int offset = 1; offset < 32; offset <<= 1) {
        unsigned other = __shfl_up_sync(0xffffffffu, value, offset);
        if (lane >= offset) value += other;
    }
    return value;
}

__global__ void scanBlocks(const unsigned *in, unsigned *out, unsigned *blockSums, int n) {
    __shared__ unsigned warpTotals[kThreads / 32];
    int base = blockIdx.x * kPerBlock + threadIdx.x * kPerThread;
    unsigned items[kPerThread], total = 0;
    for (int k = 0; k < kPerThread; ++k) {
        items[k] = base + k < n ? in[base + k] : 0;
        total += items[k];
    }
    unsigned inclusive = warpInclusiveScan(total);
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (lane == 31) warpTotals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        unsigned value = lane < kThreads / 32 ? warpTotals[lane] : 0;
        unsigned scanned = warpInclusiveScan(value);
        if (lane < kThreads / 32) warpTotals[lane] = scanned - value;
    }
    __syncthreads();
    unsigned running = warpTotals[warp] + inclusive - total;
    for (int k = 0; k < kPerThread; ++k) {
        if (base + k < n) out[base + k] = running;
        running += items[k];
    }
    if (threadIdx.x == kThreads - 1) blockSums[blockIdx.x] = running;
}

__global__ void addOffsets(unsigned *out, const unsigned *offsets, int n) {
    int i = blockIdx.x * kPerBlock + threadIdx.x;
    for (int k = 0; k < kPerThread; ++k, i += kThreads)
        if (i < n) out[i] += offsets[blockIdx.x];
}

// Scans in[0..n) into out, using scratch for the block sums of every level.
void exclusiveScan(const unsigned *in, unsigned *out, int n, unsigned *scratch) {
    int blocks = (n + kPerBlock - 1) / kPerBlock;
    scanBlocks<<<blocks, kThreads>>>(in, out, scratch, n);
    CHECK_LAUNCH();
    if (blocks == 1) return;
    exclusiveScan(scratch, scratch, blocks, scratch + blocks);
    addOffsets<<<blocks, kThreads>>>(out, scratch, n);
    CHECK_LAUNCH();
}

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 1 << 22);
    int repetitions = (int)argOr(argc, argv, 2, 1);
    std::vector<unsigned> host(n), result(n);
    Lcg rng(2022);
    for (int i = 0; i < n; ++i) host[i] = rng.next() % 100;
    unsigned *in, *out, *scratch;
    CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&scratch, (n / kPerBlock + 64) * 2 * sizeof(unsigned)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    for (int r = 0; r < repetitions; ++r) exclusiveScan(in, out, n, scratch);
    CHECK(cudaMemcpy(result.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned running = 0, wrong = 0;
    for (int i = 0; i < n; ++i) {
        wrong += result[i] != running;
        running += host[i];
    }
    printf("scan of %d elements x %d: total %u (host %u), %u wrong\n", n, repetitions,
           result[n - 1] + host[n - 1], running, wrong);
    return finish("perf_scan", wrong == 0);
}
