// Kernels calling device functions of rdc_library.cu (a plain one and a template), and a
// templated kernel instantiated for two types.
#include "rdc.h"
__global__ void transform(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = scale(data[i], i);
}
template <typename T>
__global__ void clamp_all(T* data, int n, T low, T high) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = clamp_to<T>(data[i], low, high);
}
template __global__ void clamp_all<int>(int*, int, int, int);
template __global__ void clamp_all<double>(double*, int, double, double);
__global__ void count_calls(int* out) { *out = calls; }
