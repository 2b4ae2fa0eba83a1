// Shared by the transformer-layer kernels and their driver: error checking, the 16-bit element
// types' conversions to and from float, and the warp-level reductions (xor butterflies).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e = (call);                                                            \
        if (e != cudaSuccess) {                                                            \
            printf("CUDA failure %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

template <typename T> struct Convert;
template <> struct Convert<__half> {
    __host__ __device__ static float toFloat(__half x) { return __half2float(x); }
    __host__ __device__ static __half fromFloat(float x) { return __float2half_rn(x); }
};
template <> struct Convert<__nv_bfloat16> {
    __host__ __device__ static float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
    __host__ __device__ static __nv_bfloat16 fromFloat(float x) { return __float2bfloat16_rn(x); }
};

template <typename T> __device__ __forceinline__ T warpAllReduceSum(T v) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
    return v;
}

template <typename T> __device__ __forceinline__ T warpAllReduceMax(T v) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
    return v;
}

// The launches (kernels.cu): softmax over rows of `cols` bf16 values (a warp per row, 16-byte
// loads), layer normalisation of half or bf16 rows (a block per row), bias + GELU on bf16 pairs,
// and a bf16-weight matrix-vector product with float accumulation.
void launchSoftmax(const __nv_bfloat16 *in, __nv_bfloat16 *out, int rows, int cols);
template <typename T>
void launchLayerNorm(const T *in, const T *gamma, const T *beta, T *out, int rows, int cols);
void launchBiasGelu(__nv_bfloat162 *x, const __nv_bfloat162 *bias, int rows, int cols2);
void launchGemv(const __nv_bfloat16 *w, const float *x, float *y, int rows, int cols);

template <> struct Convert<float> {
    __host__ __device__ static float toFloat(float x) { return x; }
    __host__ __device__ static float fromFloat(float x) { return x; }
};
