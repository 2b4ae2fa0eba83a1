// Blocks that talk to each other within one launch, hand-written as in CUDA's
// threadFenceReduction sample and single-pass scans: (1) a sum whose last block to finish
// (found with an atomicInc ticket after __threadfence) adds the per-block partials, and (2) an
// inclusive scan with decoupled look-back: tiles take their index from an atomicAdd counter
// (so a tile's predecessors have started), publish (flag, value) in one 64-bit word with
// volatile stores, and look back over their predecessors' words until an inclusive prefix is
// found. Both repeated to catch an ordering that only sometimes goes wrong. Default 2^22
// unsigned values, 4 repetitions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                                      \
    do {                                                                                   \
        cudaError_t e = (x);                                                               \
        if (e != cudaSuccess) {                                                            \
            fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;

__device__ unsigned int g_ticket = 0;

__device__ unsigned long long blockSum(unsigned long long v) {
    __shared__ unsigned long long warpSums[kThreads / 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) warpSums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < kThreads / 32 ? warpSums[threadIdx.x] : 0;
    if (threadIdx.x < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v; // thread 0 holds the block's sum
}

__global__ void sumLastBlock(const unsigned *in, int n, unsigned long long *partials,
                             unsigned long long *total) {
    __shared__ bool amLast;
    unsigned long long v = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) v += in[i];
    v = blockSum(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        unsigned ticket = atomicInc(&g_ticket, gridDim.x);
        amLast = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (amLast) {
        unsigned long long s = 0;
        for (int b = threadIdx.x; b < gridDim.x; b += kThreads) s += ((volatile unsigned long long *)partials)[b];
        s = blockSum(s);
        if (threadIdx.x == 0) {
            *total = s;
            g_ticket = 0;
        }
    }
}

// A tile's published word: flag in the top two bits (1 aggregate, 2 inclusive prefix), the
// value (below 2^62) in the rest.
constexpr uint64_t kAggregate = 1ull << 62, kPrefix = 2ull << 62, kValueMask = kAggregate - 1;

__global__ void scanLookBack(const unsigned *in, unsigned long long *out, int n,
                             unsigned long long *status, unsigned *tileCounter) {
    __shared__ unsigned tileShared;
    __shared__ unsigned long long exclusiveShared;
    __shared__ unsigned long long sums[kThreads];
    if (threadIdx.x == 0) tileShared = atomicAdd(tileCounter, 1u);
    __syncthreads();
    const unsigned tile = tileShared;
    const int base = tile * kTile + threadIdx.x * kItems;
    unsigned long long local[kItems], run = 0;
    for (int k = 0; k < kItems; ++k) {
        run += base + k < n ? in[base + k] : 0u;
        local[k] = run;
    }
    // Block-wide inclusive scan of the threads' totals (Hillis-Steele).
    sums[threadIdx.x] = run;
    __syncthreads();
    for (int o = 1; o < kThreads; o <<= 1) {
        unsigned long long add = threadIdx.x >= o ? sums[threadIdx.x - o] : 0;
        __syncthreads();
        sums[threadIdx.x] += add;
        __syncthreads();
    }
    const unsigned long long aggregate = sums[kThreads - 1];
    volatile unsigned long long *vstatus = status;
    if (threadIdx.x == 0) {
        if (tile == 0) {
            vstatus[0] = kPrefix | aggregate;
            exclusiveShared = 0;
        } else {
            vstatus[tile] = kAggregate | aggregate;
            unsigned long long exclusive = 0;
            for (int p = int(tile) - 1; p >= 0;) {
                unsigned long long word = vstatus[p];
                if (word == 0) continue; // not published yet: look again
                exclusive += word & kValueMask;
                if (word & kPrefix) break;
                --p;
            }
            __threadfence();
            vstatus[tile] = kPrefix | (exclusive + aggregate);
            exclusiveShared = exclusive;
        }
    }
    __syncthreads();
    const unsigned long long before = exclusiveShared + sums[threadIdx.x] - run;
    for (int k = 0; k < kItems; ++k)
        if (base + k < n) out[base + k] = before + local[k];
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    const int reps = argc > 2 ? atoi(argv[2]) : 4;
    std::vector<unsigned> in(n);
    unsigned s = 17;
    for (auto &v : in) v = (s = s * 1664525u + 1013904223u) >> 20;
    std::vector<unsigned long long> ref(n);
    unsigned long long run = 0;
    for (int i = 0; i < n; ++i) ref[i] = run += in[i];

    const int tiles = (n + kTile - 1) / kTile, sumBlocks = 120;
    unsigned *dIn, *dCounter;
    unsigned long long *dOut, *dStatus, *dPartials, *dTotal;
    CUDA_CHECK(cudaMalloc(&dIn, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&dStatus, tiles * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&dCounter, sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&dPartials, sumBlocks * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&dTotal, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

    int sumWrong = 0, scanWrong = 0;
    std::vector<unsigned long long> out(n);
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaMemset(dTotal, 0, sizeof(unsigned long long)));
        sumLastBlock<<<sumBlocks, kThreads>>>(dIn, n, dPartials, dTotal);
        CUDA_CHECK(cudaGetLastError());
        unsigned long long total = 0;
        CUDA_CHECK(cudaMemcpy(&total, dTotal, sizeof(total), cudaMemcpyDeviceToHost));
        sumWrong += total != ref[n - 1];

        CUDA_CHECK(cudaMemset(dStatus, 0, tiles * sizeof(unsigned long long)));
        CUDA_CHECK(cudaMemset(dCounter, 0, sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(dOut, 0, n * sizeof(unsigned long long)));
        scanLookBack<<<tiles, kThreads>>>(dIn, dOut, n, dStatus, dCounter);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(out.data(), dOut, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        scanWrong += out != ref;
    }
    printf("values %d, tiles %d, repetitions %d, total %llu\n", n, tiles, reps, ref[n - 1]);
    printf("last-block sum wrong in %d repetitions, look-back scan wrong in %d\n", sumWrong,
           scanWrong);
    CUDA_CHECK(cudaFree(dIn));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFree(dStatus));
    CUDA_CHECK(cudaFree(dCounter));
    CUDA_CHECK(cudaFree(dPartials));
    CUDA_CHECK(cudaFree(dTotal));
    bool ok = sumWrong == 0 && scanWrong == 0;
    printf("interblock_sync: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
