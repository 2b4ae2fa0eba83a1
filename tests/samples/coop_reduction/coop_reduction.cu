// A multi-block reduction in one cooperative launch: each block reduces a grid-stride slice,
// the grid synchronises with cg::this_grid().sync(), and block 0 sums the partial results.
#include <cooperative_groups.h>
#include "../common/helpers.h"
namespace cg = cooperative_groups;

__global__ void gridReduce(const int *in, long long *partial, long long *result, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ long long cache[];
    long long sum = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    cache[block.thread_rank()] = sum;
    block.sync();
    for (int s = block.size() / 2; s > 0; s >>= 1) {
        if (block.thread_rank() < s) cache[block.thread_rank()] += cache[block.thread_rank() + s];
        block.sync();
    }
    if (block.thread_rank() == 0) partial[blockIdx.x] = cache[0];
    grid.sync();
    if (grid.thread_rank() == 0) {
        long long total = 0;
        for (int b = 0; b < gridDim.x; ++b) total += partial[b];
        *result = total;
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 22);
    int device = 0, supported = 0, sms = 0, perSm = 0, threads = 256;
    checkCudaErrors(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
    if (!supported) {
        printf("cooperative launch unsupported\n");
        return finish("coop_reduction", false);
    }
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    size_t smem = threads * sizeof(long long);
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridReduce, threads, smem));
    int blocks = sms * perSm;
    int *in;
    long long *partial, *result;
    int *host = (int *)malloc(n * sizeof(int));
    long long expect = 0;
    for (int i = 0; i < n; ++i) expect += host[i] = (i * 7) % 1001 - 500;
    checkCudaErrors(cudaMalloc(&in, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&partial, blocks * sizeof(long long)));
    checkCudaErrors(cudaMalloc(&result, sizeof(long long)));
    checkCudaErrors(cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice));
    void *args[] = {&in, &partial, &result, &n};
    EventTimer timer;
    timer.start();
    checkCudaErrors(cudaLaunchCooperativeKernel((void *)gridReduce, blocks, threads, args, smem, 0));
    float ms = timer.stop();
    long long got = 0;
    checkCudaErrors(cudaMemcpy(&got, result, sizeof(got), cudaMemcpyDeviceToHost));
    printf("sum = %lld (expected %lld)\n", got, expect);
    printf("time: %.3f ms over %d blocks\n", ms, blocks);
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(partial));
    checkCudaErrors(cudaFree(result));
    free(host);
    return finish("coop_reduction", got == expect && blocks > 0);
}
