// Streams created with the device's lowest and highest priorities run their work to
// completion; each stream reports the priority it was given.
#include "../common/helpers.h"

__global__ void work(int *out, int n, int tag) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tag * 1000 + i % 1000;
}

int main() {
    int least = 0, greatest = 0;
    checkCudaErrors(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    bool ok = greatest <= least;
    const int n = 1 << 18;
    cudaStream_t low, high;
    checkCudaErrors(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
    checkCudaErrors(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
    int pLow = 1, pHigh = 1;
    checkCudaErrors(cudaStreamGetPriority(low, &pLow));
    checkCudaErrors(cudaStreamGetPriority(high, &pHigh));
    ok &= pLow == least && pHigh == greatest;
    int *a, *b;
    checkCudaErrors(cudaMallocManaged(&a, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&b, n * sizeof(int)));
    for (int r = 0; r < 8; ++r) {
        work<<<n / 256, 256, 0, low>>>(a, n, 1);
        work<<<n / 256, 256, 0, high>>>(b, n, 2);
    }
    checkCudaErrors(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) ok &= a[i] == 1000 + i % 1000 && b[i] == 2000 + i % 1000;
    printf("priorities: stream priorities %s the device's range\n", ok ? "match" : "DO NOT match");
    checkCudaErrors(cudaStreamDestroy(low));
    checkCudaErrors(cudaStreamDestroy(high));
    checkCudaErrors(cudaFree(a));
    checkCudaErrors(cudaFree(b));
    return finish("stream_priorities", ok);
}
