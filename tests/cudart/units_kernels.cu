// Second translation unit of the `units` program (its own fatbin): a template kernel
// instantiated for two types, launched through host functions.
#include <cuda_runtime.h>

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void launch_axpy(int a, const int *x, int *y, int n, cudaStream_t stream) {
    axpy<int><<<(n + 63) / 64, 64, 0, stream>>>(a, x, y, n);
}

void launch_axpy(double a, const double *x, double *y, int n, cudaStream_t stream) {
    axpy<double><<<(n + 63) / 64, 64, 0, stream>>>(a, x, y, n);
}
