// Radix sort of 2^22 key-value pairs with cub::DeviceRadixSort::SortPairs (the size of CUB's
// radix sort examples), built at nvcc's default architecture, and the keys alone in descending
// order with SortKeysDescending. Checked against a stable sort on the host.
// Usage: perf_sort_cub [n]
#include <algorithm>
#include <numeric>
#include <vector>
#include <cub/device/device_radix_sort.cuh>
#include "perf_common.h"

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 1 << 22);
    std::vector<unsigned> keys(n);
    std::vector<int> values(n);
    Lcg rng(7);
    for (int i = 0; i < n; ++i) keys[i] = rng.next() >> 4, values[i] = i;
    unsigned *keysIn, *keysOut;
    int *valuesIn, *valuesOut;
    CHECK(cudaMalloc(&keysIn, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&keysOut, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&valuesIn, n * sizeof(int)));
    CHECK(cudaMalloc(&valuesOut, n * sizeof(int)));
    CHECK(cudaMemcpy(keysIn, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(valuesIn, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    size_t pairsBytes = 0, descendingBytes = 0;
    CHECK(cub::DeviceRadixSort::SortPairs(nullptr, pairsBytes, keysIn, keysOut, valuesIn,
                                          valuesOut, n));
    CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, descendingBytes, keysIn, keysOut, n));
    void *temp;
    size_t tempBytes = std::max(pairsBytes, descendingBytes);
    CHECK(cudaMalloc(&temp, tempBytes));
    CHECK(cub::DeviceRadixSort::SortPairs(temp, tempBytes, keysIn, keysOut, valuesIn, valuesOut, n));
    std::vector<unsigned> sortedKeys(n), descending(n);
    std::vector<int> sortedValues(n);
    CHECK(cudaMemcpy(sortedKeys.data(), keysOut, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sortedValues.data(), valuesOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cub::DeviceRadixSort::SortKeysDescending(temp, tempBytes, keysIn, keysOut, n));
    CHECK(cudaMemcpy(descending.data(), keysOut, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    bool pairsOk = true, descendingOk = true;
    for (int i = 0; i < n; ++i) {
        pairsOk &= sortedKeys[i] == keys[order[i]] && sortedValues[i] == order[i];
        descendingOk &= descending[i] == keys[order[n - 1 - i]];
    }
    printf("cub radix sort of %d pairs: %s; descending keys: %s\n", n, pairsOk ? "sorted" : "WRONG",
           descendingOk ? "sorted" : "WRONG");
    return finish("perf_sort_cub", pairsOk && descendingOk);
}
