// LSD radix sort, 4 bits per pass: per-block digit histograms, an exclusive scan of the
// digit-major histogram table, and a stable scatter in which each block ranks its keys with
// __syncthreads_count-based splits in shared memory.
#include <algorithm>
#include <vector>
#include "../common/helpers.h"

constexpr int THREADS = 256, RADIX = 16;

__global__ void digitHistogram(const unsigned *keys, unsigned *table, int n, int shift, int blocks) {
    __shared__ unsigned counts[RADIX];
    if (threadIdx.x < RADIX) counts[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n) atomicAdd(&counts[(keys[i] >> shift) & (RADIX - 1)], 1u);
    __syncthreads();
    if (threadIdx.x < RADIX) table[threadIdx.x * blocks + blockIdx.x] = counts[threadIdx.x];
}

__global__ void scanTable(unsigned *table, int length) {
    // One block: a serial scan per thread chunk, then a Hillis-Steele scan of the chunk sums.
    __shared__ unsigned sums[1024];
    int per = (length + blockDim.x - 1) / blockDim.x, begin = threadIdx.x * per;
    unsigned s = 0;
    for (int i = begin; i < begin + per && i < length; ++i) s += table[i];
    sums[threadIdx.x] = s;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        unsigned v = threadIdx.x >= off ? sums[threadIdx.x - off] : 0;
        __syncthreads();
        sums[threadIdx.x] += v;
        __syncthreads();
    }
    unsigned run = sums[threadIdx.x] - s;
    for (int i = begin; i < begin + per && i < length; ++i) {
        unsigned v = table[i];
        table[i] = run;
        run += v;
    }
}

__global__ void scatter(const unsigned *keys, unsigned *out, const unsigned *table, int n, int shift, int blocks) {
    __shared__ unsigned sk[THREADS];
    __shared__ unsigned digitStart[RADIX];
    int i = blockIdx.x * THREADS + threadIdx.x;
    bool valid = i < n;
    unsigned key = valid ? keys[i] : 0xffffffffu;
    // Stable split on each of the 4 bits: rank among the block's keys by digit.
    for (int bit = 0; bit < 4; ++bit) {
        unsigned b = (key >> (shift + bit)) & 1;
        unsigned zeros = THREADS - __syncthreads_count(b);
        sk[threadIdx.x] = b;
        __syncthreads();
        // Count of ones before me (inclusive scan of b) by Hillis-Steele.
        for (int off = 1; off < THREADS; off <<= 1) {
            unsigned v = threadIdx.x >= off ? sk[threadIdx.x - off] : 0;
            __syncthreads();
            sk[threadIdx.x] += v;
            __syncthreads();
        }
        unsigned onesBefore = sk[threadIdx.x] - b;
        unsigned dest = b ? zeros + onesBefore : threadIdx.x - onesBefore;
        __syncthreads();
        sk[dest] = key;
        __syncthreads();
        key = sk[threadIdx.x];
        __syncthreads();
    }
    unsigned digit = (key >> shift) & (RADIX - 1);
    if (threadIdx.x == 0 || digit != ((sk[threadIdx.x - 1] >> shift) & (RADIX - 1))) digitStart[digit] = threadIdx.x;
    __syncthreads();
    int valids = min(THREADS, n - blockIdx.x * THREADS);
    if (threadIdx.x < valids) out[table[digit * blocks + blockIdx.x] + threadIdx.x - digitStart[digit]] = key;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    int blocks = (n + THREADS - 1) / THREADS;
    std::vector<unsigned> host(n);
    Lcg rng(2024);
    for (int i = 0; i < n; ++i) host[i] = rng.next();
    unsigned *a, *b, *table;
    checkCudaErrors(cudaMalloc(&a, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&b, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&table, RADIX * blocks * sizeof(unsigned)));
    checkCudaErrors(cudaMemcpy(a, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    for (int shift = 0; shift < 32; shift += 4) {
        digitHistogram<<<blocks, THREADS>>>(a, table, n, shift, blocks);
        scanTable<<<1, 1024>>>(table, RADIX * blocks);
        scatter<<<blocks, THREADS>>>(a, b, table, n, shift, blocks);
        std::swap(a, b);
    }
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    std::vector<unsigned> result(n);
    checkCudaErrors(cudaMemcpy(result.data(), a, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::sort(host.begin(), host.end());
    bool ok = result == host;
    printf("radix sort of %d keys: %s\n", n, ok ? "sorted" : "NOT SORTED");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(a));
    checkCudaErrors(cudaFree(b));
    checkCudaErrors(cudaFree(table));
    return finish("radix_sort", ok);
}
