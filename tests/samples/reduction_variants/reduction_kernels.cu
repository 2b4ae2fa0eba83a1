// Reduction variants: interleaved addressing, sequential addressing, first add during load with
// a warp-unrolled tail, and a warp-shuffle reduction; templates over the block size.
#include "../common/helpers.h"
#include "reduction.h"

__global__ void reduceInterleaved(const int *in, long long *out, int n) {
    extern __shared__ long long s[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned index = 2 * stride * tid;
        if (index < blockDim.x) s[index] += s[index + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void reduceSequential(const int *in, long long *out, int n) {
    extern __shared__ long long s[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

template <unsigned blockSize>
__device__ void warpReduce(volatile long long *s, unsigned tid) {
    if (blockSize >= 64) s[tid] += s[tid + 32];
    __syncwarp();
    if (blockSize >= 32) s[tid] += s[tid + 16];
    __syncwarp();
    if (blockSize >= 16) s[tid] += s[tid + 8];
    __syncwarp();
    if (blockSize >= 8) s[tid] += s[tid + 4];
    __syncwarp();
    if (blockSize >= 4) s[tid] += s[tid + 2];
    __syncwarp();
    if (blockSize >= 2) s[tid] += s[tid + 1];
}

template <unsigned blockSize>
__global__ void reduceUnrolled(const int *in, long long *out, int n) {
    extern __shared__ long long s[];
    unsigned tid = threadIdx.x, i = blockIdx.x * blockSize * 2 + tid;
    unsigned gridSize = blockSize * 2 * gridDim.x;
    long long sum = 0;
    while (i < n) {
        sum += in[i];
        if (i + blockSize < n) sum += in[i + blockSize];
        i += gridSize;
    }
    s[tid] = sum;
    __syncthreads();
    if (blockSize >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
    if (blockSize >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
    if (blockSize >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
    if (tid < 32) warpReduce<blockSize>(s, tid);
    if (tid == 0) out[blockIdx.x] = s[0];
}

template <unsigned blockSize>
__global__ void reduceShuffle(const int *in, long long *out, int n) {
    __shared__ long long warpSums[blockSize / 32];
    long long sum = 0;
    for (int i = blockIdx.x * blockSize + threadIdx.x; i < n; i += blockSize * gridDim.x) sum += in[i];
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockSize / 32 ? warpSums[threadIdx.x] : 0;
        for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (threadIdx.x == 0) out[blockIdx.x] = sum;
    }
}

template <unsigned blockSize>
static void launchTemplated(int variant, const int *in, long long *out, int n, int blocks) {
    size_t smem = blockSize * sizeof(long long);
    if (variant == 2) reduceUnrolled<blockSize><<<blocks, blockSize, smem>>>(in, out, n);
    else reduceShuffle<blockSize><<<blocks, blockSize>>>(in, out, n);
}

const char *variantName(int variant) {
    static const char *names[] = {"interleaved", "sequential", "unrolled", "shuffle"};
    return names[variant];
}

long long reduceOnDevice(int variant, const int *in, int n, int threads, int blocks) {
    long long *partial;
    checkCudaErrors(cudaMalloc(&partial, blocks * sizeof(long long)));
    size_t smem = threads * sizeof(long long);
    if (variant == 0) reduceInterleaved<<<blocks, threads, smem>>>(in, partial, n);
    else if (variant == 1) reduceSequential<<<blocks, threads, smem>>>(in, partial, n);
    else switch (threads) {
        case 512: launchTemplated<512>(variant, in, partial, n, blocks); break;
        case 256: launchTemplated<256>(variant, in, partial, n, blocks); break;
        case 128: launchTemplated<128>(variant, in, partial, n, blocks); break;
        default: launchTemplated<64>(variant, in, partial, n, blocks); break;
    }
    checkCudaErrors(cudaGetLastError());
    long long *host = (long long *)malloc(blocks * sizeof(long long));
    checkCudaErrors(cudaMemcpy(host, partial, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
    long long total = 0;
    for (int b = 0; b < blocks; ++b) total += host[b];
    free(host);
    checkCudaErrors(cudaFree(partial));
    return total;
}
