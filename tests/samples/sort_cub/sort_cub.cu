// CUB's device-wide sorts as libraries call them, with the two-phase temporary-storage query:
// DeviceRadixSort::SortPairs over a DoubleBuffer (keys and values ping-pong, the selector says
// where the result is) on the full key width and on a bit range, SortPairsDescending, and
// DeviceSegmentedSort::SortPairs / StableSortKeys over segments of very different lengths
// (empty, single, a few, thousands). Every result is checked against std::stable_sort on the
// host. Sizes: 2^22 pairs and 2^20 segmented items (the first argument: log2 of the pairs).
#include <algorithm>
#include <numeric>
#include <vector>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include "../common/helpers.h"

// Device copies of host vectors, freed when the scope ends.
template <typename T>
struct DeviceArray {
    T *ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count) { checkCudaErrors(cudaMalloc(&ptr, n * sizeof(T))); }
    explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) {
        checkCudaErrors(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~DeviceArray() { cudaFree(ptr); }
    std::vector<T> read(const T *from) const {
        std::vector<T> host(n);
        checkCudaErrors(cudaMemcpy(host.data(), from, n * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
};

// Sorts (keys, values) on bits [beginBit, endBit) and compares with a stable host sort of the
// same bits: CUB's radix sort is stable, so values must match exactly.
template <bool Descending>
static bool radixPairs(const std::vector<unsigned> &keys, const std::vector<float> &values,
                       int beginBit, int endBit) {
    size_t n = keys.size();
    DeviceArray<unsigned> k0(keys), k1(n);
    DeviceArray<float> v0(values), v1(n);
    cub::DoubleBuffer<unsigned> dKeys(k0.ptr, k1.ptr);
    cub::DoubleBuffer<float> dValues(v0.ptr, v1.ptr);
    withCubTempStorage([&](void *temp, size_t &bytes) {
        if (Descending)
            return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, dKeys, dValues, (int)n,
                                                             beginBit, endBit);
        return cub::DeviceRadixSort::SortPairs(temp, bytes, dKeys, dValues, (int)n, beginBit, endBit);
    });
    std::vector<unsigned> gotKeys = k0.read(dKeys.Current());
    std::vector<float> gotValues = v0.read(dValues.Current());

    unsigned mask = (endBit - beginBit == 32 ? ~0u : ((1u << (endBit - beginBit)) - 1)) << beginBit;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        unsigned ka = keys[a] & mask, kb = keys[b] & mask;
        return Descending ? ka > kb : ka < kb;
    });
    size_t errors = 0;
    for (size_t i = 0; i < n; ++i)
        errors += gotKeys[i] != keys[order[i]] || gotValues[i] != values[order[i]];
    printf("DeviceRadixSort::SortPairs%s bits [%d, %d): %zu pairs, %zu mismatches, result in buffer %d\n",
           Descending ? "Descending" : "", beginBit, endBit, n, errors, dKeys.selector);
    return errors == 0;
}

// Segment offsets: lengths drawn from a mix of empty, tiny, medium and large segments.
static std::vector<int> makeOffsets(size_t total, Lcg &rng) {
    std::vector<int> offsets{0};
    size_t at = 0;
    while (at < total) {
        unsigned pick = rng.next() % 16;
        size_t len = pick == 0 ? 0 : pick < 6 ? 1 + rng.next() % 8 : pick < 14 ? 16 + rng.next() % 300
                                                                                : 1000 + rng.next() % 6000;
        len = std::min(len, total - at);
        at += len;
        offsets.push_back((int)at);
    }
    return offsets;
}

static bool segmented(size_t n, Lcg &rng) {
    std::vector<int> offsets = makeOffsets(n, rng);
    int segments = (int)offsets.size() - 1;
    std::vector<int> keys(n);
    std::vector<unsigned> values(n);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = (int)(rng.next() % 5000) - 2500;  // negative keys, many repeats
        values[i] = (unsigned)i;
    }
    DeviceArray<int> dOffsets(offsets), keysIn(keys), keysOut(n), stableOut(n);
    DeviceArray<unsigned> valuesIn(values), valuesOut(n);
    withCubTempStorage([&](void *temp, size_t &bytes) {
        return cub::DeviceSegmentedSort::SortPairs(temp, bytes, keysIn.ptr, keysOut.ptr, valuesIn.ptr,
                                                   valuesOut.ptr, (int)n, segments, dOffsets.ptr,
                                                   dOffsets.ptr + 1);
    });
    withCubTempStorage([&](void *temp, size_t &bytes) {
        return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keysIn.ptr, stableOut.ptr, (int)n,
                                                        segments, dOffsets.ptr, dOffsets.ptr + 1);
    });
    std::vector<int> gotKeys = keysOut.read(keysOut.ptr), gotStable = stableOut.read(stableOut.ptr);
    std::vector<unsigned> gotValues = valuesOut.read(valuesOut.ptr);

    size_t errors = 0;
    std::vector<int> expected(keys);
    for (int s = 0; s < segments; ++s) {
        std::sort(expected.begin() + offsets[s], expected.begin() + offsets[s + 1]);
        // SortPairs is not stable: each value must come from its segment and carry its key.
        for (int i = offsets[s]; i < offsets[s + 1]; ++i) {
            unsigned v = gotValues[i];
            errors += v < (unsigned)offsets[s] || v >= (unsigned)offsets[s + 1] || keys[v] != gotKeys[i];
        }
    }
    for (size_t i = 0; i < n; ++i) errors += gotKeys[i] != expected[i] || gotStable[i] != expected[i];
    printf("DeviceSegmentedSort: %zu items in %d segments, %zu mismatches\n", n, segments, errors);
    return errors == 0;
}

int main(int argc, char **argv) {
    int log2n = sizeArg(argc, argv, 22);
    if (log2n < 6 || log2n > 24) {
        fprintf(stderr, "sort_cub: log2 size %d outside 6..24\n", log2n);
        return EXIT_FAILURE;
    }
    size_t n = (size_t)1 << log2n;
    checkCudaErrors(cudaSetDevice(0));
    Lcg rng(77);
    std::vector<unsigned> keys(n);
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = rng.next();
        values[i] = (float)i;  // exact below 2^24
    }
    bool ok = radixPairs<false>(keys, values, 0, 32);
    ok = radixPairs<false>(keys, values, 8, 20) && ok;
    ok = radixPairs<true>(keys, values, 0, 32) && ok;
    ok = segmented(n / 4, rng) && ok;
    return finish("sort_cub", ok);
}
