// Kernels compiled by clang's CUDA front end (no CUDA SDK): see cuda_min.h.
#include "cuda_min.h"

__device__ int clang_counter;
__constant__ float clang_coeffs[4] = {1.0f, 2.0f, 4.0f, 8.0f};

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_reduce(const float *in, float *out, int n)
{
    __shared__ float buf[128];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, buf[0]);
}

extern "C" __global__ void warp_sum(const int *in, int *out)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" __global__ void vote_and_xor(const float *in, unsigned *ballots, float *out)
{
    float v = in[threadIdx.x];
    unsigned b = __ballot_sync(0xffffffffu, v > 0.0f);
    float w = v + __shfl_xor_sync(0xffffffffu, v, 1);
    if ((threadIdx.x & 31) == 0) ballots[threadIdx.x / 32] = b;
    out[threadIdx.x] = w;
}

__device__ __noinline__ int collatz_steps(int n)
{
    int steps = 0;
    while (n > 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        ++steps;
    }
    return steps;
}

extern "C" __global__ void collatz(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = collatz_steps(i + 1);
        atomicMax(&clang_counter, out[i]);
    }
}

// C++ linkage and a template: mangled names.
struct Scale {
    float mul;
    int shift;
    double bias;
};

template <typename T>
__global__ void apply_scale(Scale s, const T *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (double)(in[i] * s.mul) + s.bias + clang_coeffs[i & 3] * s.shift;
}
template __global__ void apply_scale<float>(Scale, const float *, double *, int);
template __global__ void apply_scale<int>(Scale, const int *, double *, int);

extern "C" __global__ void rotate_dyn_smem(const int *in, int *out)
{
    extern __shared__ int tile[];
    tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

extern "C" __global__ void cas_spin_add(int *p, int v)
{
    int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, assumed + v);
    } while (old != assumed);
}

extern "C" __global__ void fast_math(const float *in, float *out)
{
    float x = in[threadIdx.x];
    out[2 * threadIdx.x] = sqrtf(x);
    out[2 * threadIdx.x + 1] = fast_exp2f(x);
}

extern "C" __global__ void say_hello(int tag)
{
    printf("hello from %d/%d tag %d\n", blockIdx.x, threadIdx.x, tag);
}
