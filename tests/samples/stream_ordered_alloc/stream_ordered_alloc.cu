// Stream-ordered allocation: cudaMallocAsync / cudaFreeAsync of temporaries inside a loop of
// kernels on one stream, from the device's default memory pool with a release threshold.
#include <vector>
#include "../common/helpers.h"

__global__ void fill(int *v, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = value + i;
}

__global__ void accumulate(long long *total, const int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd((unsigned long long *)total, (unsigned long long)v[i]);
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 16), rounds = 20;
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreate(&stream));
    cudaMemPool_t pool;
    checkCudaErrors(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long threshold = 64ull << 20;
    checkCudaErrors(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    long long *total;
    checkCudaErrors(cudaMallocManaged(&total, sizeof(long long)));
    *total = 0;
    long long expect = 0;
    for (int r = 0; r < rounds; ++r) {
        int *tmp;
        checkCudaErrors(cudaMallocAsync(&tmp, n * sizeof(int), stream));
        fill<<<(n + 255) / 256, 256, 0, stream>>>(tmp, n, r);
        accumulate<<<(n + 255) / 256, 256, 0, stream>>>(total, tmp, n);
        checkCudaErrors(cudaFreeAsync(tmp, stream));
        expect += (long long)r * n + (long long)n * (n - 1) / 2;
    }
    checkCudaErrors(cudaStreamSynchronize(stream));
    printf("total %lld (expected %lld)\n", *total, expect);
    bool ok = *total == expect;
    checkCudaErrors(cudaFree(total));
    checkCudaErrors(cudaStreamDestroy(stream));
    return finish("stream_ordered_alloc", ok);
}
