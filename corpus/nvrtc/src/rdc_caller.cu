// Compiled with -rdc=true: calls device functions and uses a global defined in rdc_callee.cu.
extern "C" __device__ float rdc_scale(float x, float s);
__device__ int rdc_clamp(int v, int lo, int hi);
__device__ void rdc_bump(int by);
extern __device__ int rdc_counter;

extern "C" __global__ void rdc_apply(const float *x, float *y, int *clamped, int n, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = rdc_scale(x[i], s);
    clamped[i] = rdc_clamp((int)x[i], -10, 10);
    rdc_bump(1);
}

extern "C" __global__ void rdc_read_counter(int *out)
{
    *out = rdc_counter;
}
