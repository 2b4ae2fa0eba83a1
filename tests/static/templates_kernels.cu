// Templated kernels instantiated here and called from templates_main.cu through host
// wrappers (separate translation units, whole-program compilation).
#include "templates.h"
template <typename T, int Factor>
__global__ void axpy(T* y, const T* x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] * T(Factor) + y[i];
}
template <typename T, int Factor>
void launch_axpy(T* y, const T* x, T a, int n) {
    axpy<T, Factor><<<(n + 127) / 128, 128>>>(y, x, a, n);
}
template void launch_axpy<float, 1>(float*, const float*, float, int);
template void launch_axpy<double, 3>(double*, const double*, double, int);
template void launch_axpy<int, 2>(int*, const int*, int, int);
