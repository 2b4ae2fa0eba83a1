// CUB at nvcc's default architecture: cub::DeviceReduce::Sum and cub::DeviceScan::ExclusiveSum
// with their two-phase temporary storage queries, and cub::BlockReduce in a kernel of our own.
#include <cub/cub.cuh>
#include <vector>
#include "../common/helpers.h"

template <int BlockThreads, int ItemsPerThread>
__global__ void blockSums(const int *in, int *out) {
    using BlockReduce = cub::BlockReduce<int, BlockThreads>;
    __shared__ typename BlockReduce::TempStorage storage;
    int items[ItemsPerThread];
    int base = blockIdx.x * BlockThreads * ItemsPerThread;
    for (int k = 0; k < ItemsPerThread; ++k) items[k] = in[base + threadIdx.x * ItemsPerThread + k];
    int sum = BlockReduce(storage).Sum(items);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    std::vector<int> h(n);
    Lcg rng(21);
    for (auto &v : h) v = (int)(rng.next() % 201) - 100;
    int *in, *out, *sum;
    checkCudaErrors(cudaMalloc(&in, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&out, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&sum, sizeof(int)));
    checkCudaErrors(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    bool ok = true;

    void *temp = nullptr;
    size_t tempBytes = 0;
    checkCudaErrors(cub::DeviceReduce::Sum(temp, tempBytes, in, sum, n));
    checkCudaErrors(cudaMalloc(&temp, tempBytes));
    checkCudaErrors(cub::DeviceReduce::Sum(temp, tempBytes, in, sum, n));
    checkCudaErrors(cudaDeviceSynchronize());
    long long expect = 0;
    for (int v : h) expect += v;
    ok &= *sum == expect;
    printf("DeviceReduce::Sum = %d\n", *sum);
    checkCudaErrors(cudaFree(temp));

    temp = nullptr;
    checkCudaErrors(cub::DeviceScan::ExclusiveSum(temp, tempBytes, in, out, n));
    checkCudaErrors(cudaMalloc(&temp, tempBytes));
    checkCudaErrors(cub::DeviceScan::ExclusiveSum(temp, tempBytes, in, out, n));
    std::vector<int> scanned(n);
    checkCudaErrors(cudaMemcpy(scanned.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int running = 0;
    bool scanOk = true;
    for (int i = 0; i < n; ++i) {
        if (scanOk && scanned[i] != running)
            printf("first wrong prefix at %d: %d, expected %d\n", i, scanned[i], running);
        scanOk &= scanned[i] == running;
        running += h[i];
    }
    printf("DeviceScan::ExclusiveSum: %s\n", scanOk ? "ok" : "WRONG");
    ok &= scanOk;
    checkCudaErrors(cudaFree(temp));

    constexpr int threads = 128, items = 4;
    int blocks = n / (threads * items);
    blockSums<threads, items><<<blocks, threads>>>(in, out);
    checkCudaErrors(cudaGetLastError());
    std::vector<int> bs(blocks);
    checkCudaErrors(cudaMemcpy(bs.data(), out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    bool blockOk = true;
    for (int b = 0; b < blocks; ++b) {
        int s = 0;
        for (int k = 0; k < threads * items; ++k) s += h[b * threads * items + k];
        blockOk &= bs[b] == s;
    }
    printf("BlockReduce: %d blocks %s\n", blocks, blockOk ? "ok" : "WRONG");
    ok &= blockOk;
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    checkCudaErrors(cudaFree(sum));
    return finish("cub_primitives", ok);
}
