// cudaHostRegister of ordinary malloc'ed memory (mapped), used by a kernel through
// cudaHostGetDevicePointer and by async copies, then unregistered.
#include <cstdlib>
#include "../common/helpers.h"

__global__ void negate(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = -v[i];
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    size_t bytes = n * sizeof(int);
    int *host = (int *)aligned_alloc(4096, (bytes + 4095) / 4096 * 4096), *devView, *dev;
    for (int i = 0; i < n; ++i) host[i] = i % 1000;
    checkCudaErrors(cudaHostRegister(host, bytes, cudaHostRegisterMapped));
    checkCudaErrors(cudaHostGetDevicePointer((void **)&devView, host, 0));
    negate<<<(n + 255) / 256, 256>>>(devView, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= host[i] == -(i % 1000);
    checkCudaErrors(cudaMalloc(&dev, bytes));
    checkCudaErrors(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, 0));
    negate<<<(n + 255) / 256, 256>>>(dev, n);
    checkCudaErrors(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, 0));
    checkCudaErrors(cudaStreamSynchronize(0));
    for (int i = 0; i < n; ++i) ok &= host[i] == i % 1000;
    printf("host[999] = %d\n", host[999]);
    checkCudaErrors(cudaHostUnregister(host));
    checkCudaErrors(cudaFree(dev));
    free(host);
    return finish("host_register", ok);
}
