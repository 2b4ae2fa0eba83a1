// Warp-aggregated atomics: lanes with the same bucket find each other with __match_any_sync,
// one leader per group adds the group's count, and the group's maximum comes from
// __reduce_max_sync over the group's own mask (sm_80 and newer; older targets gather the group
// with __shfl_sync over the same mask). samples.sh builds it for sm_80.
#include "../common/helpers.h"
#ifndef SAMPLE_NAME
#define SAMPLE_NAME "warp_aggregated"
#endif

__device__ inline void groupMaxAndCount(unsigned peers, unsigned key, unsigned &groupMax, unsigned &groupCount) {
#if __CUDA_ARCH__ >= 800
    groupMax = __reduce_max_sync(peers, key);
    groupCount = __reduce_add_sync(peers, 1u);
#else
    groupMax = key;
    groupCount = 0;
    for (unsigned rest = peers; rest; rest &= rest - 1) {
        unsigned other = __shfl_sync(peers, key, __ffs(rest) - 1);
        groupMax = other > groupMax ? other : groupMax;
        ++groupCount;
    }
#endif
}

__global__ void bucketStats(const unsigned *keys, int n, int buckets, unsigned *counts, unsigned *maxima) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;  // n is a multiple of 32: whole warps stay
    unsigned key = keys[i];
    unsigned bucket = key % buckets;
    unsigned peers = __match_any_sync(0xffffffffu, bucket);
    unsigned groupMax, groupAdd;
    groupMaxAndCount(peers, key, groupMax, groupAdd);
    int leader = __ffs(peers) - 1;
    if ((threadIdx.x & 31) == leader) {
        atomicAdd(&counts[bucket], groupAdd);
        atomicMax(&maxima[bucket], groupMax);
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20), buckets = 37;
    unsigned *keys, *counts, *maxima;
    checkCudaErrors(cudaMallocManaged(&keys, n * sizeof(unsigned)));
    checkCudaErrors(cudaMallocManaged(&counts, buckets * sizeof(unsigned)));
    checkCudaErrors(cudaMallocManaged(&maxima, buckets * sizeof(unsigned)));
    Lcg rng(99);
    for (int i = 0; i < n; ++i) keys[i] = rng.next() % 100000;
    checkCudaErrors(cudaMemset(counts, 0, buckets * sizeof(unsigned)));
    checkCudaErrors(cudaMemset(maxima, 0, buckets * sizeof(unsigned)));
    bucketStats<<<n / 256, 256>>>(keys, n, buckets, counts, maxima);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    unsigned expectCount[64] = {0}, expectMax[64] = {0};
    for (int i = 0; i < n; ++i) {
        unsigned b = keys[i] % buckets;
        expectCount[b]++;
        expectMax[b] = keys[i] > expectMax[b] ? keys[i] : expectMax[b];
    }
    bool ok = true;
    for (int b = 0; b < buckets; ++b) ok &= counts[b] == expectCount[b] && maxima[b] == expectMax[b];
    printf("bucket 5: count %u, max %u\n", counts[5], maxima[5]);
    checkCudaErrors(cudaFree(keys));
    checkCudaErrors(cudaFree(counts));
    checkCudaErrors(cudaFree(maxima));
    return finish(SAMPLE_NAME, ok);
}
