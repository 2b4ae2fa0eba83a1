// 256-bin histogram: per-block sub-histograms in shared memory with shared atomics, merged with
// global atomics; also a 64-bin variant with one sub-histogram per warp.
#include <vector>
#include "../common/helpers.h"

__global__ void histogram256(const unsigned char *data, int n, unsigned *bins) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

template <int WarpsPerBlock>
__global__ void histogram64(const unsigned *words, int nWords, unsigned *bins) {
    __shared__ unsigned perWarp[WarpsPerBlock][64];
    unsigned *mine = perWarp[threadIdx.x / 32];
    for (int b = threadIdx.x & 31; b < 64; b += 32) mine[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nWords; i += blockDim.x * gridDim.x) {
        unsigned w = words[i];
        for (int k = 0; k < 4; ++k) atomicAdd(&mine[((w >> (8 * k)) & 0xff) >> 2], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) {
        unsigned s = 0;
        for (int w = 0; w < WarpsPerBlock; ++w) s += perWarp[w][b];
        atomicAdd(&bins[b], s);
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 64 << 20);
    std::vector<unsigned char> host(n);
    Lcg rng(1);
    for (int i = 0; i < n; ++i) host[i] = (unsigned char)(rng.next() >> 24);
    unsigned char *data;
    unsigned *bins;
    checkCudaErrors(cudaMalloc(&data, n));
    checkCudaErrors(cudaMallocManaged(&bins, 256 * sizeof(unsigned)));
    checkCudaErrors(cudaMemcpy(data, host.data(), n, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemset(bins, 0, 256 * sizeof(unsigned)));
    EventTimer timer;
    timer.start();
    histogram256<<<240, 192>>>(data, n, bins);
    float ms = timer.stop();
    std::vector<unsigned> expect(256, 0);
    for (int i = 0; i < n; ++i) expect[host[i]]++;
    bool ok = true;
    for (int b = 0; b < 256; ++b) ok &= bins[b] == expect[b];
    printf("histogram256: bin[0] = %u, bin[255] = %u %s\n", bins[0], bins[255], ok ? "ok" : "WRONG");
    printf("histogram256 time: %.3f ms (%.1f MB/s)\n", ms, n / (ms * 1e3));
    checkCudaErrors(cudaMemset(bins, 0, 64 * sizeof(unsigned)));
    histogram64<4><<<120, 128>>>((const unsigned *)data, n / 4, bins);
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok64 = true;
    for (int b = 0; b < 64; ++b)
        ok64 &= bins[b] == expect[4 * b] + expect[4 * b + 1] + expect[4 * b + 2] + expect[4 * b + 3];
    printf("histogram64: bin[0] = %u %s\n", bins[0], ok64 ? "ok" : "WRONG");
    checkCudaErrors(cudaFree(data));
    checkCudaErrors(cudaFree(bins));
    return finish("histogram", ok && ok64);
}
