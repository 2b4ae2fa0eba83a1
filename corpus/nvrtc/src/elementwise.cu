// Element-wise kernels: saxpy, vector add in f32/f64/int, and grid-stride loops.
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void vec_add_f32(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vec_add_f64(const double *a, const double *b, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vec_add_i32(const int *a, const int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// C++ linkage on purpose: the entry name is mangled (_Z9vec_mul_iPKxS0_Pxm).
__global__ void vec_mul_i(const long long *a, const long long *b, long long *c, unsigned long n)
{
    unsigned long i = blockIdx.x * (unsigned long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}

// Grid-stride loop: any grid size covers any n.
extern "C" __global__ void scale_grid_stride(float *x, float s, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        x[i] *= s;
    }
}

// 2-D indexing with blockIdx.y / threadIdx.y and an unsigned/signed mix.
extern "C" __global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// Conversions between integer and floating types with clamping.
extern "C" __global__ void convert_mix(const float *in, int *as_int, unsigned char *as_u8,
                                       double *as_f64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    as_int[i] = (int)v;
    as_u8[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
    as_f64[i] = (double)v * 0.5;
}
