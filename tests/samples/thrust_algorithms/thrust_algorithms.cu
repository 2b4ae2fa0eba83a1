// Thrust at nvcc's default architecture: thrust::sort, sort_by_key, reduce, transform,
// transform_reduce and inclusive_scan on device_vectors, checked against the host.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <algorithm>
#include <numeric>
#include "../common/helpers.h"

struct Saxpy {
    int a;
    __host__ __device__ int operator()(int x, int y) const { return a * x + y; }
};

struct Square {
    __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    thrust::host_vector<int> h(n), keys(n);
    Lcg rng(9);
    for (int i = 0; i < n; ++i) { h[i] = (int)(rng.next() % 100000) - 50000; keys[i] = i; }
    thrust::device_vector<int> d = h, dk = keys, y(n, 7), out(n);
    bool ok = true;

    long long sum = thrust::reduce(d.begin(), d.end(), 0ll);
    ok &= sum == std::accumulate(h.begin(), h.end(), 0ll);
    printf("reduce: %lld\n", sum);

    thrust::transform(d.begin(), d.end(), y.begin(), out.begin(), Saxpy{3});
    thrust::host_vector<int> t = out;
    for (int i = 0; i < n; ++i) ok &= t[i] == 3 * h[i] + 7;

    long long squares = thrust::transform_reduce(d.begin(), d.end(), Square(), 0ll, thrust::plus<long long>());
    long long expectSquares = 0;
    for (int v : h) expectSquares += (long long)v * v;
    ok &= squares == expectSquares;
    printf("transform_reduce: %lld\n", squares);

    thrust::inclusive_scan(d.begin(), d.end(), out.begin());
    t = out;
    int running = 0;
    for (int i = 0; i < n; ++i) ok &= t[i] == (running += h[i]);

    thrust::sort_by_key(d.begin(), d.end(), dk.begin());
    thrust::host_vector<int> sortedKeys = d, perm = dk;
    for (int i = 0; i < n; ++i) ok &= h[perm[i]] == sortedKeys[i] && (i == 0 || sortedKeys[i - 1] <= sortedKeys[i]);
    thrust::sort(d.begin(), d.end(), thrust::greater<int>());
    thrust::host_vector<int> desc = d;
    std::sort(h.begin(), h.end(), [](int a, int b) { return a > b; });
    ok &= desc == h;
    printf("sort: min %d, max %d\n", desc[n - 1], desc[0]);
    return finish("thrust_algorithms", ok);
}
