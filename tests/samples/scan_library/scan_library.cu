// Prefix sums through the libraries, over 2^24 elements: cub::DeviceScan::ExclusiveSum of
// 32-bit counts (the temporary-storage query, then the scan), the same into 64-bit totals
// through a transform_iterator, thrust::inclusive_scan of a transform_iterator with a maximum
// operator, and thrust::exclusive_scan in place. Exact integer results, compared with the host.
// The first argument is log2 of the element count.
#include <algorithm>
#include <vector>
#include <cub/device/device_scan.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include "../common/helpers.h"
#include "../common/thrust_call.h"

// A value's "height" for the running-maximum scan: a hash folded to 20 bits.
struct Height {
    __host__ __device__ unsigned operator()(unsigned x) const {
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        return x & 0xfffff;
    }
};

struct Widen {
    __host__ __device__ unsigned long long operator()(unsigned x) const { return x; }
};

template <typename T>
static std::vector<T> download(const T *device, size_t n) {
    std::vector<T> host(n);
    checkCudaErrors(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

template <typename T, typename U>
static size_t mismatches(const std::vector<T> &got, const std::vector<U> &want) {
    size_t errors = 0;
    for (size_t i = 0; i < want.size(); ++i) errors += got[i] != (T)want[i];
    return errors;
}

int main(int argc, char **argv) {
    int log2n = sizeArg(argc, argv, 24);
    if (log2n < 4 || log2n > 27) {
        fprintf(stderr, "scan_library: log2 size %d outside 4..27\n", log2n);
        return EXIT_FAILURE;
    }
    int n = 1 << log2n;
    std::vector<unsigned> input(n);
    Lcg rng(99);
    for (auto &x : input) x = rng.next() % 1024;  // 32-bit sums wrap past 2^22 elements

    unsigned *dIn, *dOut;
    unsigned long long *dWide;
    checkCudaErrors(cudaMalloc(&dIn, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&dOut, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&dWide, n * sizeof(unsigned long long)));
    checkCudaErrors(cudaMemcpy(dIn, input.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

    // Host references: the wrapping 32-bit exclusive sum, the exact 64-bit one, the running max.
    std::vector<unsigned> exclusive32(n), runningMax(n);
    std::vector<unsigned long long> exclusive64(n);
    unsigned long long total = 0;
    unsigned best = 0;
    Height height;
    for (int i = 0; i < n; ++i) {
        exclusive64[i] = total;
        exclusive32[i] = (unsigned)total;
        total += input[i];
        best = std::max(best, height(input[i]));
        runningMax[i] = best;
    }

    bool ok = true;
    withCubTempStorage([&](void *temp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(temp, bytes, dIn, dOut, n); });
    size_t errors = mismatches(download(dOut, n), exclusive32);
    printf("cub::DeviceScan::ExclusiveSum u32: %d elements, %zu mismatches\n", n, errors);
    ok = ok && errors == 0;

    auto wide = thrust::make_transform_iterator((const unsigned *)dIn, Widen());
    withCubTempStorage([&](void *temp, size_t &bytes) { return cub::DeviceScan::ExclusiveSum(temp, bytes, wide, dWide, n); });
    std::vector<unsigned long long> got64 = download(dWide, n);
    errors = mismatches(got64, exclusive64);
    printf("cub::DeviceScan::ExclusiveSum u64: %d elements, %zu mismatches, total %llu\n", n, errors,
           got64[n - 1] + input[n - 1]);
    ok = ok && errors == 0;

    thrust::device_ptr<unsigned> in(dIn), out(dOut);
    auto heights = thrust::make_transform_iterator(in, Height());
    thrustCall("inclusive_scan", [&] {
        thrust::inclusive_scan(thrust::device, heights, heights + n, out, thrust::maximum<unsigned>());
    });
    errors = mismatches(download(dOut, n), runningMax);
    printf("thrust::inclusive_scan max: %d elements, %zu mismatches, maximum %u\n", n, errors, best);
    ok = ok && errors == 0;

    thrustCall("exclusive_scan", [&] { thrust::exclusive_scan(thrust::device, in, in + n, in); });
    errors = mismatches(download(dIn, n), exclusive32);
    printf("thrust::exclusive_scan in place: %d elements, %zu mismatches\n", n, errors);
    ok = ok && errors == 0;

    checkCudaErrors(cudaFree(dIn));
    checkCudaErrors(cudaFree(dOut));
    checkCudaErrors(cudaFree(dWide));
    return finish("scan_library", ok);
}
