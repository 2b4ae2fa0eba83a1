// Hillis-Steele inclusive scan in double-buffered shared memory, templated over the block
// size, plus a warp-shuffle scan (__shfl_up_sync) of each warp; block totals scanned on the host.
#include <vector>
#include "../common/helpers.h"

template <int BlockSize>
__global__ void hillisSteele(const int *in, int *out, int *blockTotals, int n) {
    __shared__ int buffers[2][BlockSize];
    int i = blockIdx.x * BlockSize + threadIdx.x;
    int pout = 0, pin = 1;
    buffers[pout][threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BlockSize; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buffers[pin][threadIdx.x];
        if (threadIdx.x >= offset) v += buffers[pin][threadIdx.x - offset];
        buffers[pout][threadIdx.x] = v;
        __syncthreads();
    }
    if (i < n) out[i] = buffers[pout][threadIdx.x];
    if (threadIdx.x == BlockSize - 1) blockTotals[blockIdx.x] = buffers[pout][threadIdx.x];
}

__global__ void warpScan(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0, lane = threadIdx.x & 31;
    for (int offset = 1; offset < 32; offset <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += up;
    }
    if (i < n) out[i] = v;
}

__global__ void addOffsets(int *out, const int *offsets, int n, int blockSize) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += offsets[i / blockSize];
}

template <int BlockSize>
bool run(const std::vector<int> &host) {
    int n = (int)host.size(), blocks = (n + BlockSize - 1) / BlockSize;
    int *in, *out, *totals;
    checkCudaErrors(cudaMalloc(&in, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&out, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&totals, blocks * sizeof(int)));
    checkCudaErrors(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    hillisSteele<BlockSize><<<blocks, BlockSize>>>(in, out, totals, n);
    checkCudaErrors(cudaDeviceSynchronize());
    int running = 0;
    for (int b = 0; b < blocks; ++b) {
        int t = totals[b];
        totals[b] = running;
        running += t;
    }
    addOffsets<<<blocks, BlockSize>>>(out, totals, n, BlockSize);
    std::vector<int> result(n);
    checkCudaErrors(cudaMemcpy(result.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool ok = true;
    int acc = 0;
    for (int i = 0; i < n; ++i) ok &= result[i] == (acc += host[i]);
    warpScan<<<blocks, BlockSize>>>(in, out, n);
    checkCudaErrors(cudaMemcpy(result.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        acc = (i % 32 == 0) ? host[i] : acc + host[i];
        ok &= result[i] == acc;
    }
    printf("block %4d: %s\n", BlockSize, ok ? "ok" : "WRONG");
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    checkCudaErrors(cudaFree(totals));
    return ok;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    std::vector<int> host(n);
    Lcg rng(17);
    for (int i = 0; i < n; ++i) host[i] = (int)(rng.next() % 21) - 10;
    bool ok = run<128>(host) && run<256>(host) && run<1024>(host);
    return finish("scan_hillis", ok);
}
