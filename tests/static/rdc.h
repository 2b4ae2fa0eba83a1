// Declarations shared by the translation units of the relocatable-device-code program
// (rdc_library.cu, rdc_kernels.cu, rdc_main.cu; built with nvcc -rdc=true).
#pragma once
// rdc_library.cu: device functions and variables the kernels of another unit use.
extern __device__ int calls;
extern __device__ float bias[4];
__device__ float scale(float x, int lane);
template <typename T>
__device__ T clamp_to(T x, T low, T high);
// rdc_kernels.cu: kernels launched from rdc_main.cu.
__global__ void transform(float* data, int n);
template <typename T>
__global__ void clamp_all(T* data, int n, T low, T high);
__global__ void count_calls(int* out);
