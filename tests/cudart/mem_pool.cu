// Stream-ordered allocation under pressure, written as a CUDA sample is: many cudaMallocAsync /
// cudaFreeAsync pairs on two streams feeding kernels, a pool of its own with a release
// threshold, trimming, and the used/reserved attributes and their highs; results checked
// against a host computation.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)
#define EXPECT(cond)                                                  \
    do {                                                              \
        if (!(cond)) {                                                \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                  \
        }                                                             \
    } while (0)

__global__ void fill(int *x, int value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value + i;
}
__global__ void accumulate(long long *sum, const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd((unsigned long long *)sum, (unsigned long long)x[i]);
}

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr which) {
    uint64_t value = 0;
    CHECK(cudaMemPoolGetAttribute(pool, which, &value));
    return value;
}

int main() {
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    EXPECT(supported == 1);
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++) CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    long long *sums;
    CHECK(cudaMalloc(&sums, 2 * sizeof(long long)));
    CHECK(cudaMemset(sums, 0, 2 * sizeof(long long)));

    // The default pool: 200 allocations of varying sizes, each used then freed in order.
    cudaMemPool_t pool, current;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(pool == current);
    long long want[2] = {0, 0};
    for (int round = 0; round < 200; round++) {
        int s = round % 2, n = 256 + (round * 37) % 4096;
        cudaStream_t stream = streams[s];
        int *x;
        CHECK(cudaMallocAsync((void **)&x, n * sizeof(int), stream));
        fill<<<(n + 255) / 256, 256, 0, stream>>>(x, round, n);
        accumulate<<<(n + 255) / 256, 256, 0, stream>>>(sums + s, x, n);
        CHECK(cudaFreeAsync(x, stream));
        for (int i = 0; i < n; i++) want[s] += round + i;
    }
    for (int s = 0; s < 2; s++) CHECK(cudaStreamSynchronize(streams[s]));
    long long got[2];
    CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got[0] == want[0] && got[1] == want[1]);
    EXPECT(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0);
    EXPECT(attr(pool, cudaMemPoolAttrUsedMemHigh) >= 256 * sizeof(int));
    printf("default pool: 200 allocations on 2 streams, sums %lld %lld\n", got[0], got[1]);

    // A pool of its own that keeps freed memory (threshold: all), then trimmed.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t own;
    CHECK(cudaMemPoolCreate(&own, &props));
    uint64_t keep_all = UINT64_MAX;
    CHECK(cudaMemPoolSetAttribute(own, cudaMemPoolAttrReleaseThreshold, &keep_all));
    EXPECT(attr(own, cudaMemPoolAttrReleaseThreshold) == UINT64_MAX);
    const int LIVE = 16, BYTES = 1 << 20;
    int *live[LIVE];
    for (int i = 0; i < LIVE; i++) {
        CHECK(cudaMallocFromPoolAsync((void **)&live[i], BYTES, own, streams[0]));
        fill<<<BYTES / 4 / 256, 256, 0, streams[0]>>>(live[i], i, BYTES / 4);
    }
    EXPECT(attr(own, cudaMemPoolAttrUsedMemCurrent) >= (uint64_t)LIVE * BYTES);
    EXPECT(attr(own, cudaMemPoolAttrUsedMemHigh) >= (uint64_t)LIVE * BYTES);
    EXPECT(attr(own, cudaMemPoolAttrReservedMemCurrent) >= (uint64_t)LIVE * BYTES);
    int check[4];
    CHECK(cudaMemcpyAsync(check, live[LIVE - 1] + 100, sizeof check, cudaMemcpyDeviceToHost,
                          streams[0]));
    for (int i = 0; i < LIVE; i++) CHECK(cudaFreeAsync(live[i], streams[0]));
    CHECK(cudaStreamSynchronize(streams[0]));
    EXPECT(check[0] == LIVE - 1 + 100 && check[3] == LIVE - 1 + 103);
    EXPECT(attr(own, cudaMemPoolAttrUsedMemCurrent) == 0);
    EXPECT(attr(own, cudaMemPoolAttrReservedMemCurrent) >= (uint64_t)LIVE * BYTES);
    CHECK(cudaMemPoolTrimTo(own, 0));
    EXPECT(attr(own, cudaMemPoolAttrReservedMemCurrent) == 0);
    EXPECT(attr(own, cudaMemPoolAttrReservedMemHigh) >= (uint64_t)LIVE * BYTES);
    uint64_t zero = 0;
    CHECK(cudaMemPoolSetAttribute(own, cudaMemPoolAttrReservedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(own, cudaMemPoolAttrUsedMemHigh, &zero));
    EXPECT(attr(own, cudaMemPoolAttrUsedMemHigh) == 0);
    printf("own pool: %d MiB kept after frees, trimmed to 0\n", LIVE * BYTES >> 20);

    // The device's current pool set to it, then back.
    CHECK(cudaDeviceSetMemPool(0, own));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(current == own);
    int *x;
    CHECK(cudaMallocAsync((void **)&x, 4096, streams[1]));
    EXPECT(attr(own, cudaMemPoolAttrUsedMemCurrent) >= 4096);
    CHECK(cudaFreeAsync(x, streams[1]));
    CHECK(cudaStreamSynchronize(streams[1]));
    CHECK(cudaDeviceSetMemPool(0, pool));

    // Misuse.
    EXPECT(cudaMemPoolSetAttribute(own, cudaMemPoolAttrUsedMemCurrent, &zero) ==
           cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaMemPoolDestroy(own));
    CHECK(cudaFree(sums));
    for (int s = 0; s < 2; s++) CHECK(cudaStreamDestroy(streams[s]));
    printf("mem_pool: passed\n");
    return 0;
}
