// Relocatable device code across two translation units (-rdc=true): the kernel calls
// rdc_lib.cu's device function and counts in its __device__ global. Prints a final line.
#include <cstdio>
#include <cuda_runtime.h>

extern __device__ int calls;
__device__ float square_plus(float x, float y);

__global__ void apply(float *data, int n, float y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = square_plus(data[i], y);
}

int main() {
    const int n = 256;
    float host[n];
    for (int i = 0; i < n; i++) host[i] = (float)(i % 16);
    float *dev = nullptr;
    cudaMalloc(&dev, sizeof host);
    cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
    apply<<<n / 64, 64>>>(dev, n, 0.5f);
    cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    int counted = 0;
    cudaError_t err = cudaMemcpyFromSymbol(&counted, calls, sizeof counted);
    bool ok = err == cudaSuccess && counted == n;
    for (int i = 0; i < n; i++) ok = ok && host[i] == (float)((i % 16) * (i % 16)) + 0.5f;
    printf("rdc: %d calls, %s\n", counted, ok ? "ok" : "FAILED");
    cudaFree(dev);
    return ok ? 0 : 1;
}
