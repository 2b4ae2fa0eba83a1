// Sorting 2^22 unsigned keys with Thrust (thrust::sort, which runs CUB's onesweep radix sort),
// and the same keys by value with thrust::sort_by_key, built at nvcc's default architecture.
// Checked against std::sort on the host.
// Usage: perf_sort_thrust [n]
#include <algorithm>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include "perf_common.h"

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 1 << 22);
    thrust::host_vector<unsigned> host(n);
    Lcg rng(22);
    for (int i = 0; i < n; ++i) host[i] = rng.next();
    thrust::device_vector<unsigned> keys = host;
    thrust::sort(keys.begin(), keys.end());
    thrust::host_vector<unsigned> sorted = keys;

    thrust::device_vector<unsigned> byKey = host;
    thrust::device_vector<int> values(n);
    thrust::sequence(values.begin(), values.end());
    thrust::sort_by_key(byKey.begin(), byKey.end(), values.begin());
    thrust::host_vector<int> order = values;
    CHECK(cudaDeviceSynchronize());

    std::vector<unsigned> reference(host.begin(), host.end());
    std::sort(reference.begin(), reference.end());
    bool keysOk = std::equal(reference.begin(), reference.end(), sorted.begin());
    bool orderOk = true;
    for (int i = 0; i < n && orderOk; ++i) orderOk = host[order[i]] == reference[i];
    printf("thrust sort of %d keys: %s; sort_by_key: %s\n", n, keysOk ? "sorted" : "WRONG",
           orderOk ? "sorted" : "WRONG");
    return finish("perf_sort_thrust", keysOk && orderOk);
}
