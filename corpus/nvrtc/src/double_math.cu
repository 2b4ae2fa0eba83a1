// Double precision: dot product with a block reduction, transcendental functions, rounding.
extern "C" __global__ void dot_f64(const double *a, const double *b, double *out, int n)
{
    __shared__ double partial[256];
    double s = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        s = fma(a[i], b[i], s);
    partial[threadIdx.x] = s;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

extern "C" __global__ void math_f64(const double *x, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    out[8 * i + 0] = exp(v);
    out[8 * i + 1] = sin(v);
    out[8 * i + 2] = sqrt(fabs(v));
    out[8 * i + 3] = log(fabs(v) + 1.0);
    out[8 * i + 4] = cos(v);
    out[8 * i + 5] = pow(fabs(v), 1.5);
    out[8 * i + 6] = rint(v * 3.0);
    out[8 * i + 7] = 1.0 / v;
}

// Explicit rounding-mode intrinsics.
extern "C" __global__ void rounding_f64(const double *a, const double *b, double *out)
{
    int i = threadIdx.x;
    double x = a[i], y = b[i];
    out[4 * i + 0] = __dadd_rn(x, y);
    out[4 * i + 1] = __dadd_rz(x, y);
    out[4 * i + 2] = __dmul_ru(x, y);
    out[4 * i + 3] = __ddiv_rd(x, y);
}
