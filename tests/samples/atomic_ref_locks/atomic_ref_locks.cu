// libcu++ atomics in device code: cuda::atomic_ref over global memory with explicit memory
// orders (relaxed counters, acquire/release spin locks), cuda::atomic in global memory,
// and fetch_min/fetch_max. Per-bucket spin locks guard a multi-word update (count, sum and
// sum of squares as integers) that lanes of the same warp contend for, which relies on
// independent thread scheduling (sm_70 and newer). Default 2^20 samples into 1024 buckets.
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                   \
    do {                                                                                   \
        cudaError_t err = call;                                                            \
        if (err != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err));   \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

struct Bucket {
    int lock;
    unsigned count;
    unsigned long long sum, sumSquares;
};

using DeviceAtomicInt = cuda::atomic_ref<int, cuda::thread_scope_device>;

__device__ void lockBucket(Bucket &b) {
    DeviceAtomicInt lock(b.lock);
    while (lock.exchange(1, cuda::memory_order_acquire) != 0) {
        while (lock.load(cuda::memory_order_relaxed) != 0) {
        }
    }
}

__device__ void unlockBucket(Bucket &b) {
    DeviceAtomicInt(b.lock).store(0, cuda::memory_order_release);
}

__global__ void accumulate(const unsigned *__restrict__ samples, int n, Bucket *buckets,
                           int numBuckets, cuda::atomic<unsigned, cuda::thread_scope_device> *seen,
                           unsigned *minMax) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = samples[i];
        // Few buckets per warp: lanes of one warp contend for the same lock.
        Bucket &b = buckets[(v >> 4) % numBuckets];
        lockBucket(b);
        b.count += 1;
        b.sum += v;
        b.sumSquares += (unsigned long long)v * v;
        unlockBucket(b);
        seen->fetch_add(1, cuda::memory_order_relaxed);
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> lo(minMax[0]), hi(minMax[1]);
        lo.fetch_min(v, cuda::memory_order_relaxed);
        hi.fetch_max(v, cuda::memory_order_relaxed);
    }
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int numBuckets = 1024;
    std::vector<unsigned> samples(n);
    unsigned s = 23;
    for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        // Eight neighbouring samples share a bucket, so lanes of one warp contend for its lock.
        unsigned bucket = ((unsigned(i) / 8) * 2654435761u >> 12) % numBuckets;
        samples[i] = (((s >> 20) << 10 | bucket) << 4) | (s & 15);
    }
    Bucket *dBuckets;
    unsigned *dSamples, *dMinMax;
    cuda::atomic<unsigned, cuda::thread_scope_device> *dSeen;
    CHECK_CUDA(cudaMalloc(&dBuckets, numBuckets * sizeof(Bucket)));
    CHECK_CUDA(cudaMalloc(&dSamples, n * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&dSeen, sizeof(*dSeen)));
    CHECK_CUDA(cudaMalloc(&dMinMax, 2 * sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(dBuckets, 0, numBuckets * sizeof(Bucket)));
    CHECK_CUDA(cudaMemset(dSeen, 0, sizeof(*dSeen)));
    const unsigned init[2] = {0xffffffffu, 0u};
    CHECK_CUDA(cudaMemcpy(dMinMax, init, sizeof(init), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dSamples, samples.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    accumulate<<<256, 256>>>(dSamples, n, dBuckets, numBuckets, dSeen, dMinMax);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<Bucket> buckets(numBuckets);
    unsigned seen = 0, minMax[2];
    CHECK_CUDA(cudaMemcpy(buckets.data(), dBuckets, numBuckets * sizeof(Bucket), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&seen, dSeen, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(minMax, dMinMax, sizeof(minMax), cudaMemcpyDeviceToHost));

    std::vector<Bucket> ref(numBuckets, Bucket{0, 0, 0, 0});
    unsigned lo = 0xffffffffu, hi = 0;
    for (unsigned v : samples) {
        Bucket &b = ref[(v >> 4) % numBuckets];
        b.count++, b.sum += v, b.sumSquares += (unsigned long long)v * v;
        lo = std::min(lo, v), hi = std::max(hi, v);
    }
    int wrong = 0, locked = 0;
    for (int k = 0; k < numBuckets; ++k) {
        wrong += buckets[k].count != ref[k].count || buckets[k].sum != ref[k].sum ||
                 buckets[k].sumSquares != ref[k].sumSquares;
        locked += buckets[k].lock != 0;
    }
    printf("samples %d, buckets %d: %d wrong, %d left locked\n", n, numBuckets, wrong, locked);
    printf("seen %u, min %u, max %u (host %u %u)\n", seen, minMax[0], minMax[1], lo, hi);
    bool ok = wrong == 0 && locked == 0 && seen == unsigned(n) && minMax[0] == lo && minMax[1] == hi;
    CHECK_CUDA(cudaFree(dBuckets));
    CHECK_CUDA(cudaFree(dSamples));
    CHECK_CUDA(cudaFree(dSeen));
    CHECK_CUDA(cudaFree(dMinMax));
    printf("atomic_ref_locks: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
