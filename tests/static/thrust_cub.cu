// Thrust (sort, transform, reduce) and CUB (device-wide inclusive scan).
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <vector>
#include "check.h"
struct square {
    __host__ __device__ int operator()(int x) const { return x * x % 1000; }
};
int main() {
    const int n = 5000;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i) host[i] = (i * 7919) % 10007;
    thrust::device_vector<int> v(host.begin(), host.end());
    thrust::sort(v.begin(), v.end());
    bool sorted = thrust::is_sorted(v.begin(), v.end());
    thrust::transform(v.begin(), v.end(), v.begin(), square());
    long total = thrust::reduce(v.begin(), v.end(), 0L);
    int* out;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    size_t temp_bytes = 0;
    const int* in = thrust::raw_pointer_cast(v.data());
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, n));
    void* temp;
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n));
    int last = 0;
    CHECK(cudaMemcpy(&last, out + n - 1, sizeof last, cudaMemcpyDeviceToHost));
    std::printf("sorted %d, total %ld, scan last %d\n", sorted, total, last);
    CHECK(cudaFree(temp));
    CHECK(cudaFree(out));
    bool ok = sorted && total == last;
    std::printf("thrust_cub: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
