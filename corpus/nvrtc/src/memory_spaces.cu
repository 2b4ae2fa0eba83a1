// Dynamic shared memory, __device__ globals, __constant__ arrays and a __managed__-free global table.
__device__ int dev_counter;
__device__ float dev_table[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
__constant__ float coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, 2.0f, 4.0f, 8.0f, 16.0f};
__constant__ int const_lut[4];

// Dynamic shared memory sized at launch: reverse one block's worth of data.
extern "C" __global__ void reverse_dyn_smem(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    if (base + t < n) s[t] = in[base + t];
    __syncthreads();
    int src = blockDim.x - 1 - t;
    if (base + src < n) out[base + t] = s[src];
}

// Two views of the same dynamic shared allocation (float then int after blockDim floats).
extern "C" __global__ void dyn_smem_two_arrays(const float *in, float *out, int *counts)
{
    extern __shared__ float sf[];
    int *si = (int *)&sf[blockDim.x];
    sf[threadIdx.x] = in[threadIdx.x];
    si[threadIdx.x] = sf[threadIdx.x] > 0.0f;
    __syncthreads();
    out[threadIdx.x] = sf[blockDim.x - 1 - threadIdx.x];
    counts[threadIdx.x] = si[(threadIdx.x + 1) % blockDim.x];
}

extern "C" __global__ void use_globals(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = x[i] * coeffs[i & 7] + dev_table[i & 15] + (float)const_lut[i & 3];
    atomicAdd(&dev_counter, 1);
}

extern "C" __global__ void read_counter(int *out)
{
    *out = dev_counter;
}

// Generic pointer that may point to shared or global memory, resolved at run time.
__device__ __noinline__ float load_generic(const float *p, int i) { return p[i]; }

extern "C" __global__ void generic_pointers(const float *g, float *out, int use_shared)
{
    __shared__ float sh[32];
    sh[threadIdx.x & 31] = g[threadIdx.x] * 2.0f;
    __syncthreads();
    const float *p = use_shared ? sh : g;
    out[threadIdx.x] = load_generic(p, threadIdx.x & 31);
}
