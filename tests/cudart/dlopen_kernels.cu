// A CUDA shared library for dlopen_host.cpp: one kernel behind a C function.
#include <cuda_runtime.h>

__device__ int table[1024];

__global__ void increment(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1 + table[i % 1024];
}

extern "C" int run_increment(void) {
    int *data = nullptr;
    if (cudaMalloc(&data, 256 * sizeof(int)) != cudaSuccess) return -1;
    cudaMemset(data, 0, 256 * sizeof(int));
    increment<<<2, 128>>>(data, 256);
    int host[256];
    cudaError_t err = cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost);
    cudaFree(data);
    return err == cudaSuccess ? host[255] : -1;
}
