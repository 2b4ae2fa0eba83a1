// Single-precision math: precise library calls and fast intrinsics.
// Compiled twice: as is, and with --use_fast_math (the precise calls become approximations).
extern "C" __global__ void precise_math(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[8 * i + 0] = expf(v);
    out[8 * i + 1] = sinf(v);
    out[8 * i + 2] = erff(v);
    out[8 * i + 3] = powf(fabsf(v), 2.5f);
    out[8 * i + 4] = logf(fabsf(v) + 1.0f);
    out[8 * i + 5] = sqrtf(fabsf(v));
    out[8 * i + 6] = v / (v + 3.0f);
    out[8 * i + 7] = tanhf(v);
}

extern "C" __global__ void fast_intrinsics(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[6 * i + 0] = __expf(v);
    out[6 * i + 1] = __sinf(v);
    out[6 * i + 2] = __cosf(v);
    out[6 * i + 3] = __logf(fabsf(v) + 1.0f);
    out[6 * i + 4] = __fdividef(v, v + 3.0f);
    out[6 * i + 5] = rsqrtf(fabsf(v) + 1.0f);
}

// Explicit rounding and saturation intrinsics.
extern "C" __global__ void rounding_f32(const float *a, const float *b, float *out)
{
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    out[6 * i + 0] = __fadd_rz(x, y);
    out[6 * i + 1] = __fmul_ru(x, y);
    out[6 * i + 2] = __fdiv_rd(x, y);
    out[6 * i + 3] = __fmaf_rn(x, y, 1.0f);
    out[6 * i + 4] = __saturatef(x);
    out[6 * i + 5] = __int2float_rz(__float2int_rn(x * 1000.0f));
}
