// Segmented scans by key: the host reference and the device versions share these types.
#pragma once
#include <vector>

// Keys equal by their row: key / 4 names the row, so neighbouring keys 4r..4r+3 form one
// segment under the predicate (thrust's and CUB's by-key scans take an equality functor).
struct SameRow {
    __host__ __device__ bool operator()(int a, int b) const { return a / 4 == b / 4; }
};

struct Max {
    __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// Device scans (device_scans.cu): each writes n results into out.
void thrustInclusiveByKey(const int *keys, const int *values, int *out, int n);
void thrustExclusiveByRow(const int *keys, const int *values, int *out, int n);
void cubInclusiveSumByKey(const int *keys, const int *values, int *out, int n);
void cubExclusiveMaxByKey(const int *keys, const int *values, int *out, int n);
