// Zero-copy host memory: cudaHostAlloc(Mapped) + cudaHostGetDevicePointer, and cudaMallocHost
// staging buffers for ordinary copies.
#include "../common/helpers.h"

__global__ void scaleInPlace(float *data, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor + 1.0f;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    checkCudaErrors(cudaSetDeviceFlags(cudaDeviceMapHost));
    float *mapped = nullptr, *mappedDev = nullptr, *pinned = nullptr, *dev = nullptr;
    checkCudaErrors(cudaHostAlloc((void **)&mapped, n * sizeof(float), cudaHostAllocMapped));
    checkCudaErrors(cudaHostGetDevicePointer((void **)&mappedDev, mapped, 0));
    checkCudaErrors(cudaMallocHost((void **)&pinned, n * sizeof(float)));
    checkCudaErrors(cudaMalloc((void **)&dev, n * sizeof(float)));
    for (int i = 0; i < n; ++i) mapped[i] = pinned[i] = (float)(i % 1000);

    int threads = 256, blocks = (n + threads - 1) / threads;
    scaleInPlace<<<blocks, threads>>>(mappedDev, 2.0f, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());

    checkCudaErrors(cudaMemcpy(dev, pinned, n * sizeof(float), cudaMemcpyHostToDevice));
    scaleInPlace<<<blocks, threads>>>(dev, 3.0f, n);
    checkCudaErrors(cudaMemcpy(pinned, dev, n * sizeof(float), cudaMemcpyDeviceToHost));

    bool ok = true;
    for (int i = 0; i < n && ok; ++i) {
        float v = (float)(i % 1000);
        ok = mapped[i] == v * 2.0f + 1.0f && pinned[i] == v * 3.0f + 1.0f;
        if (!ok) printf("mismatch at %d: %f %f\n", i, mapped[i], pinned[i]);
    }
    printf("mapped[999] = %.1f, pinned[999] = %.1f\n", mapped[999], pinned[999]);
    checkCudaErrors(cudaFreeHost(mapped));
    checkCudaErrors(cudaFreeHost(pinned));
    checkCudaErrors(cudaFree(dev));
    return finish("pinned_mapped", ok);
}
