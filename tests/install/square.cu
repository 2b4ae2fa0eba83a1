// A minimal CUDA program for the install and wheel checks: squares 0..999 on the device and
// prints the sum (332833500).
#include <cstdio>
__global__ void square(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= v[i];
}
int main() {
    const int n = 1000;
    int host[n], *dev;
    for (int i = 0; i < n; ++i) host[i] = i;
    if (cudaMalloc(&dev, sizeof host) != cudaSuccess) return 1;
    cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
    square<<<(n + 127) / 128, 128>>>(dev, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    long sum = 0;
    for (int i = 0; i < n; ++i) sum += host[i];
    printf("sum of squares %ld\n", sum);
    return 0;
}
