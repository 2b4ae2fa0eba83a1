// Thrust sorts over raw device memory wrapped in device_ptr: sort_by_key with 64-bit keys (radix
// path), sort with a user comparator (merge-sort path) and stable_sort of structs. Thrust reports
// CUDA errors as exceptions; each call is checked and the stream synchronised after it.
#include <cstdio>
#include <cstdlib>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/system_error.h>
#include "../common/helpers.h"
#include "records.h"

template <typename Sort>
static void checkedSort(const char *what, Sort sort) {
    try {
        sort();
    } catch (const thrust::system_error &e) {
        fprintf(stderr, "%s: thrust error: %s\n", what, e.what());
        exit(EXIT_FAILURE);
    }
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
}

void sortPairs64(uint64_t *keys, uint32_t *values, size_t n) {
    thrust::device_ptr<uint64_t> k(keys);
    thrust::device_ptr<uint32_t> v(values);
    checkedSort("sort_by_key", [&] { thrust::sort_by_key(thrust::device, k, k + n, v); });
}

void sortWithComparator(uint32_t *data, size_t n) {
    thrust::device_ptr<uint32_t> d(data);
    checkedSort("sort", [&] { thrust::sort(thrust::device, d, d + n, ByResidueThenValue()); });
}

void stableSortRecords(Record *records, size_t n) {
    thrust::device_ptr<Record> r(records);
    checkedSort("stable_sort", [&] { thrust::stable_sort(thrust::device, r, r + n, ByBucket()); });
}
