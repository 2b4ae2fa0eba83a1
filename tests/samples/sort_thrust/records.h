// The element types and orders the Thrust sorts of this sample use, shared by the host
// reference (main.cu) and the device sorts (thrust_sorts.cu).
#pragma once
#include <cstdint>

// A record sorted by bucket alone: equal buckets keep their input order under stable_sort.
struct Record {
    uint32_t bucket;
    uint32_t seq;
    float weight;
};

struct ByBucket {
    __host__ __device__ bool operator()(const Record &a, const Record &b) const {
        return a.bucket < b.bucket;
    }
};

// A total order that no radix sort can serve, so thrust::sort takes its merge-sort path:
// by residue modulo 1009, then by value.
struct ByResidueThenValue {
    __host__ __device__ bool operator()(uint32_t a, uint32_t b) const {
        uint32_t ra = a % 1009u, rb = b % 1009u;
        return ra < rb || (ra == rb && a < b);
    }
};

// The device sorts (thrust_sorts.cu); each works in place on device memory.
void sortPairs64(uint64_t *keys, uint32_t *values, size_t n);
void sortWithComparator(uint32_t *data, size_t n);
void stableSortRecords(Record *records, size_t n);
