// CUB's block- and warp-level collectives in kernels of our own, as libraries built on CUB write
// them: tiles loaded and stored with BlockLoad/BlockStore (BLOCK_LOAD_WARP_TRANSPOSE and
// BLOCK_STORE_WARP_TRANSPOSE) and sorted with BlockRadixSort (pairs, then the keys' low 12 bits
// only), sharing one TempStorage union; a byte histogram with BlockHistogram (sort and atomic
// variants) merged into global bins; a single block scanning a long array tile by tile with
// BlockScan and a running-prefix callback; WarpReduce sums, head-segmented sums and WarpScan;
// and DeviceMergeSort::SortPairs with a comparator of our own. Every result is checked on the host.
// Default: 2^20 keys (argument: the count, a multiple of 1024).
#include <algorithm>
#include <cub/cub.cuh>
#include <numeric>
#include <vector>
#include "../common/helpers.h"

constexpr int kThreads = 128, kItems = 8, kTile = kThreads * kItems;

template <int BeginBit, int EndBit>
__global__ void sortTiles(const unsigned *keysIn, const int *valuesIn, unsigned *keysOut, int *valuesOut) {
    using Load = cub::BlockLoad<unsigned, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using LoadV = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems, int>;
    using Store = cub::BlockStore<unsigned, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using StoreV = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename LoadV::TempStorage loadV;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
        typename StoreV::TempStorage storeV;
    } temp;
    unsigned keys[kItems];
    int values[kItems];
    const size_t offset = size_t(blockIdx.x) * kTile;
    Load(temp.load).Load(keysIn + offset, keys);
    __syncthreads();
    LoadV(temp.loadV).Load(valuesIn + offset, values);
    __syncthreads();
    Sort(temp.sort).Sort(keys, values, BeginBit, EndBit);
    __syncthreads();
    Store(temp.store).Store(keysOut + offset, keys);
    __syncthreads();
    StoreV(temp.storeV).Store(valuesOut + offset, values);
}

template <cub::BlockHistogramAlgorithm Algorithm>
__global__ void byteHistogram(const unsigned char *data, int n, unsigned *bins) {
    using Histogram = cub::BlockHistogram<unsigned char, kThreads, kItems, 256, Algorithm>;
    __shared__ typename Histogram::TempStorage temp;
    __shared__ unsigned smem[256];
    unsigned char items[kItems];
    const int tiles = n / kTile;
    for (int i = threadIdx.x; i < 256; i += kThreads) smem[i] = 0;
    __syncthreads();
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        cub::LoadDirectStriped<kThreads>(threadIdx.x, data + size_t(t) * kTile, items);
        Histogram(temp).Composite(items, smem);
        __syncthreads();
    }
    for (int i = threadIdx.x; i < 256; i += kThreads) atomicAdd(&bins[i], smem[i]);
}

// A running total carried from tile to tile, handed to BlockScan as its block prefix.
struct RunningPrefix {
    long long total;
    __device__ long long operator()(long long tileAggregate) {
        long long before = total;
        total += tileAggregate;
        return before;
    }
};

__global__ void singleBlockScan(const int *in, long long *out, int n) {
    using Scan = cub::BlockScan<long long, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ typename Scan::TempStorage temp;
    RunningPrefix prefix{0};
    for (int base = 0; base < n; base += kTile) {
        long long items[kItems];
        cub::LoadDirectBlocked(threadIdx.x, in + base, items);
        Scan(temp).ExclusiveSum(items, items, prefix);
        __syncthreads();
        cub::StoreDirectBlocked(threadIdx.x, out + base, items);
    }
}

// Per warp: the sum, sums of segments starting where head flags are set, and an inclusive max-scan.
__global__ void warpOps(const int *in, const int *heads, int *sums, int *segmentSums, int *maxScan) {
    using Reduce = cub::WarpReduce<int>;
    using Scan = cub::WarpScan<int>;
    __shared__ typename Reduce::TempStorage reduceTemp[kThreads / 32];
    __shared__ typename Scan::TempStorage scanTemp[kThreads / 32];
    const int warp = threadIdx.x / 32, i = blockIdx.x * kThreads + threadIdx.x;
    int v = in[i];
    int total = Reduce(reduceTemp[warp]).Sum(v);
    if (threadIdx.x % 32 == 0) sums[i / 32] = total;
    __syncwarp();
    int seg = Reduce(reduceTemp[warp]).HeadSegmentedSum(v, heads[i]);
    segmentSums[i] = heads[i] || threadIdx.x % 32 == 0 ? seg : 0; // valid at each segment's head
    int m;
    Scan(scanTemp[warp]).InclusiveScan(v, m, cuda::maximum<>());
    maxScan[i] = m;
}

struct DescendingByMagnitude {
    __host__ __device__ bool operator()(float a, float b) const { return fabsf(a) > fabsf(b); }
};

template <typename T> static T *toDevice(const std::vector<T> &h) {
    T *d;
    checkCudaErrors(cudaMalloc(&d, h.size() * sizeof(T)));
    checkCudaErrors(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <typename T> static std::vector<T> toHost(const T *d, size_t n) {
    std::vector<T> h(n);
    checkCudaErrors(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main(int argc, char **argv) {
    const int n = std::max(kTile, sizeArg(argc, argv, 1 << 20) / kTile * kTile), tiles = n / kTile;
    Lcg rng(77);
    std::vector<unsigned> keys(n);
    std::vector<int> values(n), small(n), heads(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = rng.next();
        values[i] = i;
        small[i] = int(rng.next() % 2001) - 1000;
        heads[i] = rng.next() % 7 == 0;
    }
    int failures = 0;

    // Tiles sorted by whole keys, then by their low 12 bits (stable: equal digits keep order).
    unsigned *dKeys = toDevice(keys), *dKeysOut;
    int *dValues = toDevice(values), *dValuesOut;
    checkCudaErrors(cudaMalloc(&dKeysOut, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&dValuesOut, n * sizeof(int)));
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 0) sortTiles<0, 32><<<tiles, kThreads>>>(dKeys, dValues, dKeysOut, dValuesOut);
        else sortTiles<0, 12><<<tiles, kThreads>>>(dKeys, dValues, dKeysOut, dValuesOut);
        checkCudaErrors(cudaGetLastError());
        std::vector<unsigned> k = toHost(dKeysOut, n);
        std::vector<int> v = toHost(dValuesOut, n);
        const unsigned mask = pass == 0 ? ~0u : 0xfffu;
        int wrong = 0;
        std::vector<int> order(kTile);
        for (int t = 0; t < tiles; ++t) {
            std::iota(order.begin(), order.end(), t * kTile);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return (keys[a] & mask) < (keys[b] & mask); });
            for (int j = 0; j < kTile; ++j) wrong += v[t * kTile + j] != order[j] || k[t * kTile + j] != keys[order[j]];
        }
        printf("BlockRadixSort of %d tiles (bits 0..%d): %d misplaced\n", tiles, pass == 0 ? 32 : 12, wrong);
        failures += wrong != 0;
    }

    // Byte histograms, both algorithms.
    std::vector<unsigned char> bytes(n);
    for (int i = 0; i < n; ++i) bytes[i] = (keys[i] >> 24) % 61 + (keys[i] & 0x80 ? 128 : 0);
    std::vector<unsigned> ref(256, 0);
    for (unsigned char b : bytes) ++ref[b];
    unsigned char *dBytes = toDevice(bytes);
    unsigned *dBins;
    checkCudaErrors(cudaMalloc(&dBins, 256 * sizeof(unsigned)));
    for (int algorithm = 0; algorithm < 2; ++algorithm) {
        checkCudaErrors(cudaMemset(dBins, 0, 256 * sizeof(unsigned)));
        int blocks = std::min(tiles, 64);
        if (algorithm == 0) byteHistogram<cub::BLOCK_HISTO_SORT><<<blocks, kThreads>>>(dBytes, n, dBins);
        else byteHistogram<cub::BLOCK_HISTO_ATOMIC><<<blocks, kThreads>>>(dBytes, n, dBins);
        checkCudaErrors(cudaGetLastError());
        std::vector<unsigned> bins = toHost(dBins, 256);
        int wrong = 0;
        for (int b = 0; b < 256; ++b) wrong += bins[b] != ref[b];
        printf("BlockHistogram (%s): %d of 256 bins wrong, bin 7 holds %u\n", algorithm == 0 ? "sort" : "atomic",
               wrong, bins[7]);
        failures += wrong != 0;
    }

    // One block scanning everything with a running prefix.
    int *dSmall = toDevice(small);
    long long *dScan;
    checkCudaErrors(cudaMalloc(&dScan, n * sizeof(long long)));
    singleBlockScan<<<1, kThreads>>>(dSmall, dScan, n);
    checkCudaErrors(cudaGetLastError());
    {
        std::vector<long long> scan = toHost(dScan, n);
        long long run = 0;
        int wrong = 0;
        for (int i = 0; i < n; ++i) wrong += scan[i] != run, run += small[i];
        printf("BlockScan with a running prefix over %d tiles: %d wrong, total %lld\n", tiles, wrong, run);
        failures += wrong != 0;
    }

    // Warp collectives.
    int *dHeads = toDevice(heads), *dSums, *dSeg, *dMax;
    checkCudaErrors(cudaMalloc(&dSums, n / 32 * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dSeg, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dMax, n * sizeof(int)));
    warpOps<<<n / kThreads, kThreads>>>(dSmall, dHeads, dSums, dSeg, dMax);
    checkCudaErrors(cudaGetLastError());
    {
        std::vector<int> sums = toHost(dSums, n / 32), seg = toHost(dSeg, n), mx = toHost(dMax, n);
        int wrong = 0;
        for (int w = 0; w < n / 32; ++w) {
            int s = 0, m = INT_MIN;
            for (int l = 0; l < 32; ++l) {
                int i = w * 32 + l;
                s += small[i];
                m = std::max(m, small[i]);
                wrong += mx[i] != m;
                if (l == 0 || heads[i]) {
                    int segSum = 0;
                    for (int j = i; j < w * 32 + 32 && (j == i || !heads[j]); ++j) segSum += small[j];
                    wrong += seg[i] != segSum;
                }
            }
            wrong += sums[w] != s;
        }
        printf("WarpReduce sums, head-segmented sums and WarpScan max over %d warps: %d wrong\n", n / 32, wrong);
        failures += wrong != 0;
    }

    // DeviceMergeSort with our comparator: floats by descending magnitude, indices along.
    const int m = n / 4;
    std::vector<float> f(m);
    for (int i = 0; i < m; ++i) f[i] = float(int(keys[i] % 20001) - 10000) / 16.f;
    float *dF = toDevice(f);
    int *dIdx = toDevice(std::vector<int>(values.begin(), values.begin() + m));
    size_t tempBytes = 0;
    checkCudaErrors(cub::DeviceMergeSort::StableSortPairs(nullptr, tempBytes, dF, dIdx, m, DescendingByMagnitude()));
    void *dTemp;
    checkCudaErrors(cudaMalloc(&dTemp, tempBytes));
    checkCudaErrors(cub::DeviceMergeSort::StableSortPairs(dTemp, tempBytes, dF, dIdx, m, DescendingByMagnitude()));
    {
        std::vector<float> sf = toHost(dF, m);
        std::vector<int> si = toHost(dIdx, m), order(m);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return DescendingByMagnitude()(f[a], f[b]); });
        int wrong = 0;
        for (int i = 0; i < m; ++i) wrong += si[i] != order[i] || sf[i] != f[order[i]];
        printf("DeviceMergeSort::StableSortPairs of %d floats by magnitude: %d misplaced, first %.4f\n", m, wrong, sf[0]);
        failures += wrong != 0;
    }
    for (void *p : {(void *)dKeys, (void *)dKeysOut, (void *)dValues, (void *)dValuesOut, (void *)dBytes, (void *)dBins,
                    (void *)dSmall, (void *)dScan, (void *)dHeads, (void *)dSums, (void *)dSeg, (void *)dMax, (void *)dF,
                    (void *)dIdx, dTemp})
        checkCudaErrors(cudaFree(p));
    return finish("cub_block", failures == 0);
}
