// Atomics of every kind on global and shared memory.
extern "C" __global__ void atomics_int(int *ctr, unsigned *uctr, int v)
{
    atomicAdd(&ctr[0], v);
    atomicSub(&ctr[1], v);
    atomicMin(&ctr[2], (int)threadIdx.x - 16);
    atomicMax(&ctr[3], (int)threadIdx.x);
    atomicAnd(&ctr[4], ~(1 << (threadIdx.x & 31)));
    atomicOr(&ctr[5], 1 << (threadIdx.x & 31));
    atomicXor(&ctr[6], 1 << (threadIdx.x & 7));
    atomicExch(&ctr[7], (int)threadIdx.x);
    atomicInc(&uctr[0], 16u);
    atomicDec(&uctr[1], 16u);
    atomicMin(&uctr[2], threadIdx.x + 3u);
    atomicMax(&uctr[3], threadIdx.x);
}

extern "C" __global__ void atomics_float(float *f, double *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&f[0], 1.0f);
    atomicAdd(&f[1], (float)i * 0.5f);
    atomicAdd(&d[0], 1.0);
    atomicAdd(&d[1], (double)i);
    atomicExch(&f[2], (float)i);
}

extern "C" __global__ void atomics_u64(unsigned long long *u, long long *s)
{
    atomicAdd(&u[0], 1ull);
    atomicAdd(&u[1], 1ull << 33);
    atomicMin(&u[2], (unsigned long long)threadIdx.x + 100);
    atomicMax(&u[3], (unsigned long long)threadIdx.x);
    atomicAnd(&u[4], ~(1ull << (threadIdx.x & 63)));
    atomicOr(&u[5], 1ull << (threadIdx.x & 63));
    atomicXor(&u[6], 1ull << (threadIdx.x & 63));
    atomicExch(&u[7], (unsigned long long)threadIdx.x);
    atomicCAS(&u[8], 0ull, 42ull);
    atomicMin(&s[0], -(long long)threadIdx.x);
    atomicMax(&s[1], (long long)threadIdx.x);
}

// The classic CAS loop: atomic multiply of a float, and an atomic max of a double.
__device__ float atomic_mul(float *addr, float v)
{
    int *p = (int *)addr;
    int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __float_as_int(__int_as_float(assumed) * v));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ double atomic_max_f64(double *addr, double v)
{
    unsigned long long *p = (unsigned long long *)addr;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v) break;
        old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
    } while (assumed != old);
    return __longlong_as_double(old);
}

extern "C" __global__ void atomics_cas_loop(float *prod, double *mx, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomic_mul(prod, in[i]);
    atomic_max_f64(mx, (double)in[i]);
}

// Shared-memory atomics: a 16-bin histogram per block, then merged into global memory.
extern "C" __global__ void histogram16(const unsigned char *in, unsigned *bins, int n)
{
    __shared__ unsigned local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[in[i] & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// Scoped and ordered atomics (sm_60+/sm_70+ forms).
extern "C" __global__ void atomics_scoped(int *p)
{
    atomicAdd_block(&p[0], 1);
    atomicAdd_system(&p[1], 1);
    atomicExch_block(&p[2], (int)threadIdx.x);
    atomicCAS_system(&p[3], 0, 7);
    __threadfence();
    __threadfence_block();
}
