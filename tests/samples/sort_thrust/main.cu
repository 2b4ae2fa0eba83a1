// Sorting with Thrust the way applications do: 64-bit keys carrying 32-bit payloads
// (sort_by_key), a comparator Thrust cannot radix-sort (merge sort), and a stable sort of
// structs whose equal keys must keep their order. Each result is compared element by element
// with std::sort / std::stable_sort on the host. Sizes: 2^22 pairs, 2^21 values, 2^20 records
// (the first argument scales all three down: log2 of the pair count).
#include <algorithm>
#include <cstring>
#include <vector>
#include "../common/helpers.h"
#include "records.h"

template <typename T>
static T *toDevice(const std::vector<T> &host) {
    T *device;
    checkCudaErrors(cudaMalloc(&device, host.size() * sizeof(T)));
    checkCudaErrors(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return device;
}

template <typename T>
static std::vector<T> toHost(const T *device, size_t n) {
    std::vector<T> host(n);
    checkCudaErrors(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

static bool checkPairs(size_t n, Lcg &rng) {
    std::vector<uint64_t> keys(n);
    std::vector<uint32_t> values(n);
    for (size_t i = 0; i < n; ++i) {
        // Full 64-bit keys with repeats in the low word, so every digit pass matters.
        keys[i] = ((uint64_t)rng.next() << 32) | (rng.next() & 0xffff);
        values[i] = (uint32_t)i;
    }
    uint64_t *dKeys = toDevice(keys);
    uint32_t *dValues = toDevice(values);
    sortPairs64(dKeys, dValues, n);
    std::vector<uint64_t> gotKeys = toHost(dKeys, n);
    std::vector<uint32_t> gotValues = toHost(dValues, n);
    checkCudaErrors(cudaFree(dKeys));
    checkCudaErrors(cudaFree(dValues));

    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    size_t keyErrors = 0, valueErrors = 0;
    for (size_t i = 0; i < n; ++i) {
        keyErrors += gotKeys[i] != keys[order[i]];
        // Equal keys may carry their values in any order: check each value's key instead.
        valueErrors += gotValues[i] >= n || keys[gotValues[i]] != gotKeys[i];
    }
    printf("sort_by_key u64: %zu pairs, %zu key and %zu value mismatches\n", n, keyErrors, valueErrors);
    return keyErrors == 0 && valueErrors == 0;
}

static bool checkComparator(size_t n, Lcg &rng) {
    std::vector<uint32_t> data(n);
    for (auto &x : data) x = rng.next();
    uint32_t *dData = toDevice(data);
    sortWithComparator(dData, n);
    std::vector<uint32_t> got = toHost(dData, n);
    checkCudaErrors(cudaFree(dData));
    std::sort(data.begin(), data.end(), ByResidueThenValue());
    size_t errors = 0;
    for (size_t i = 0; i < n; ++i) errors += got[i] != data[i];
    printf("sort by residue then value: %zu values, %zu mismatches\n", n, errors);
    return errors == 0;
}

static bool checkStable(size_t n, Lcg &rng) {
    std::vector<Record> records(n);
    for (size_t i = 0; i < n; ++i)
        records[i] = {rng.next() % 4096u, (uint32_t)i, rng.uniform()};
    Record *dRecords = toDevice(records);
    stableSortRecords(dRecords, n);
    std::vector<Record> got = toHost(dRecords, n);
    checkCudaErrors(cudaFree(dRecords));
    std::stable_sort(records.begin(), records.end(), ByBucket());
    size_t errors = 0;
    for (size_t i = 0; i < n; ++i)
        errors += memcmp(&got[i], &records[i], sizeof(Record)) != 0;
    printf("stable_sort of records by bucket: %zu records, %zu mismatches\n", n, errors);
    return errors == 0;
}

int main(int argc, char **argv) {
    int log2n = sizeArg(argc, argv, 22);
    if (log2n < 4 || log2n > 26) {
        fprintf(stderr, "sort_thrust: log2 size %d outside 4..26\n", log2n);
        return EXIT_FAILURE;
    }
    size_t n = (size_t)1 << log2n;
    checkCudaErrors(cudaSetDevice(0));
    Lcg rng(2024);
    bool ok = checkPairs(n, rng);
    ok = checkComparator(n / 2, rng) && ok;
    ok = checkStable(n / 4, rng) && ok;
    return finish("sort_thrust", ok);
}
