// Thrust and CUB built with nvcc's default architecture (no -arch: sm_75 SASS and compute_75
// PTX). CUB picks its tuning from cudaFuncGetAttributes' ptxVersion, and only the kernels of
// that tuning exist in the binary, so the runtime must report the PTX the fatbin really holds
// (75), not the device's architecture. Sorts, reduces and scans device vectors, checks each
// result on the host, and ends with "thrust_default_arch: ok".
#include <cstdio>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#define CHECK(call)                                                                             \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_));      \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

__global__ void probe() {}

int main() {
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, probe));
    printf("ptxVersion %d, binaryVersion %d\n", attributes.ptxVersion, attributes.binaryVersion);
    bool versions_ok = attributes.ptxVersion == 75;

    const int n = 50000;
    thrust::host_vector<int> host(n);
    unsigned state = 12345;
    for (int i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        host[i] = (int)(state >> 8) % 100000;
    }
    thrust::device_vector<int> values = host;
    thrust::sort(values.begin(), values.end());
    thrust::host_vector<int> sorted = values;
    bool sort_ok = true;
    for (int i = 1; i < n; i++) sort_ok = sort_ok && sorted[i - 1] <= sorted[i];

    long long expected_sum = 0;
    for (int i = 0; i < n; i++) expected_sum += host[i];
    long long sum = thrust::reduce(values.begin(), values.end(), 0LL);

    thrust::device_vector<int> ones(n, 1);
    thrust::device_vector<int> prefix(n);
    thrust::inclusive_scan(ones.begin(), ones.end(), prefix.begin());
    int last = prefix[n - 1], middle = prefix[n / 2];
    bool scan_ok = last == n && middle == n / 2 + 1;
    CHECK(cudaDeviceSynchronize());

    printf("sorted %s, sum %lld (expected %lld), scan last %d middle %d\n",
           sort_ok ? "yes" : "no", sum, expected_sum, last, middle);
    bool ok = versions_ok && sort_ok && sum == expected_sum && scan_ok;
    printf("thrust_default_arch: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
