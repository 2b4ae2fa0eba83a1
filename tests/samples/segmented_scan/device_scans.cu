// The device half of segmented_scan: Thrust's inclusive_scan_by_key / exclusive_scan_by_key
// (with an equality predicate and an initial value) and CUB's DeviceScan::InclusiveSumByKey /
// ExclusiveScanByKey (with a maximum operator), over raw device pointers.
#include <climits>
#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include "../common/helpers.h"
#include "../common/thrust_call.h"
#include "segments.h"

void thrustInclusiveByKey(const int *keys, const int *values, int *out, int n) {
    thrust::device_ptr<const int> k(keys), v(values);
    thrust::device_ptr<int> o(out);
    thrustCall("inclusive_scan_by_key", [&] { thrust::inclusive_scan_by_key(thrust::device, k, k + n, v, o); });
}

void thrustExclusiveByRow(const int *keys, const int *values, int *out, int n) {
    thrust::device_ptr<const int> k(keys), v(values);
    thrust::device_ptr<int> o(out);
    thrustCall("exclusive_scan_by_key", [&] {
        thrust::exclusive_scan_by_key(thrust::device, k, k + n, v, o, 7, SameRow(), thrust::plus<int>());
    });
}

void cubInclusiveSumByKey(const int *keys, const int *values, int *out, int n) {
    withCubTempStorage([&](void *temp, size_t &bytes) {
        return cub::DeviceScan::InclusiveSumByKey(temp, bytes, keys, values, out, n);
    });
}

void cubExclusiveMaxByKey(const int *keys, const int *values, int *out, int n) {
    withCubTempStorage([&](void *temp, size_t &bytes) {
        return cub::DeviceScan::ExclusiveScanByKey(temp, bytes, keys, values, out, Max(), INT_MIN, n);
    });
}
