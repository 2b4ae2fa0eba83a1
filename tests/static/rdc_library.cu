// Device functions and variables defined in one translation unit and used from the kernels of
// another (rdc_kernels.cu): resolved by the device link of nvcc -rdc=true.
#include "rdc.h"
__device__ int calls;
__device__ float bias[4] = {0.25f, -1.0f, 2.0f, 0.5f};
__device__ float scale(float x, int lane) {
    atomicAdd(&calls, 1);
    return x * 3.0f + bias[lane % 4];
}
template <typename T>
__device__ T clamp_to(T x, T low, T high) {
    return x < low ? low : (x > high ? high : x);
}
template __device__ int clamp_to<int>(int, int, int);
template __device__ double clamp_to<double>(double, double, double);
