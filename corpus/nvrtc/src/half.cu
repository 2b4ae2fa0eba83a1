// Half and bfloat16 arithmetic through cuda_fp16.h / cuda_bf16.h.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_axpy(__half a, const __half *x, __half *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

extern "C" __global__ void half2_mul(const __half2 *a, const __half2 *b, __half2 *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hmul2(a[i], b[i]);
}

extern "C" __global__ void half_convert(const float *in, __half *h, float *back, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half v = __float2half_rn(in[i]);
    h[i] = v;
    back[i] = __half2float(__hadd(v, __float2half(1.0f)));
}

extern "C" __global__ void bf16_axpy(float a, const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16(a * __bfloat162float(x[i]) + __bfloat162float(y[i]));
}

extern "C" __global__ void bf16_native(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hmul(x[i], x[i]) + __float2bfloat16(0.5f);
}
