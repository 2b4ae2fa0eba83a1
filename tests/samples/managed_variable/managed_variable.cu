// __managed__ variables: a counter and a table the device updates and the host reads directly.
#include "../common/helpers.h"

__managed__ unsigned long long total;
__managed__ int table[256];

__global__ void accumulate(const int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&total, (unsigned long long)data[i]);
        atomicAdd(&table[data[i] & 255], 1);
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 18);
    int *host = (int *)malloc(n * sizeof(int)), *dev;
    Lcg rng(7);
    for (int i = 0; i < n; ++i) host[i] = rng.next() % 10000;
    checkCudaErrors(cudaMalloc(&dev, n * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dev, host, n * sizeof(int), cudaMemcpyHostToDevice));
    total = 5;
    for (int b = 0; b < 256; ++b) table[b] = 0;
    accumulate<<<(n + 255) / 256, 256>>>(dev, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    unsigned long long expect = 5;
    int expectTable[256] = {0};
    for (int i = 0; i < n; ++i) {
        expect += host[i];
        expectTable[host[i] & 255]++;
    }
    bool ok = total == expect;
    for (int b = 0; b < 256; ++b) ok &= table[b] == expectTable[b];
    printf("total = %llu, table[17] = %d\n", total, table[17]);
    checkCudaErrors(cudaFree(dev));
    free(host);
    return finish("managed_variable", ok);
}
