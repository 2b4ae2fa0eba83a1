// A cooperative launch whose blocks synchronise with a block-scoped cuda::barrier between two
// phases and the grid with cg::this_grid().sync(): a two-pass normalisation (sum, then divide).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include "../common/helpers.h"
namespace cg = cooperative_groups;

__global__ void normaliseGrid(const float *in, float *out, float *blockSums, int n) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ barrier bar;
    __shared__ float partial[256];
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    float s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
    partial[threadIdx.x] = s;
    bar.arrive_and_wait();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        bar.arrive_and_wait();
    }
    if (threadIdx.x == 0) blockSums[blockIdx.x] = partial[0];
    grid.sync();
    float total = 0;
    for (int b = 0; b < gridDim.x; ++b) total += blockSums[b];
    for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = in[i] / total;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20), threads = 256, perSm = 0, sms = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, normaliseGrid, threads, 0));
    int blocks = sms * perSm;
    float *in, *out, *sums;
    checkCudaErrors(cudaMallocManaged(&in, n * sizeof(float)));
    checkCudaErrors(cudaMallocManaged(&out, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&sums, blocks * sizeof(float)));
    for (int i = 0; i < n; ++i) in[i] = (float)(i % 8);  // integer sums stay exact
    void *args[] = {&in, &out, &sums, &n};
    checkCudaErrors(cudaLaunchCooperativeKernel((void *)normaliseGrid, blocks, threads, args, 0, 0));
    checkCudaErrors(cudaDeviceSynchronize());
    double total = 0;
    for (int i = 0; i < n; ++i) total += in[i];
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= out[i] == in[i] / (float)total;
    printf("total %.0f, out[7] = %.6e\n", total, out[7]);
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    checkCudaErrors(cudaFree(sums));
    return finish("coop_barrier", ok && blocks > 0);
}
