// Non-inlined device functions (.func), recursion and calls through function pointers.
__device__ __noinline__ float poly3(float x, float a, float b, float c)
{
    return (a * x + b) * x + c;
}

__device__ __noinline__ unsigned long long factorial(unsigned n)
{
    return n <= 1 ? 1ull : n * factorial(n - 1);
}

__device__ __noinline__ int fibonacci(int n)
{
    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

// Returns a struct by value from a .func.
struct Pair {
    int lo;
    int hi;
};

__device__ __noinline__ Pair minmax(const int *v, int n)
{
    Pair p = {v[0], v[0]};
    for (int i = 1; i < n; ++i) {
        p.lo = min(p.lo, v[i]);
        p.hi = max(p.hi, v[i]);
    }
    return p;
}

extern "C" __global__ void call_funcs(const float *x, float *y, unsigned long long *fact, int *fib,
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = poly3(x[i], 1.5f, -2.0f, 0.25f);
    fact[i] = factorial(i % 21);
    fib[i] = fibonacci(i % 16);
}

extern "C" __global__ void call_minmax(const int *v, int n, int *out)
{
    Pair p = minmax(v, n);
    out[0] = p.lo;
    out[1] = p.hi;
}

__device__ __noinline__ float op_add(float a, float b) { return a + b; }
__device__ __noinline__ float op_mul(float a, float b) { return a * b; }
__device__ __noinline__ float op_max(float a, float b) { return fmaxf(a, b); }

typedef float (*binop)(float, float);

// Indirect calls (call through a register: prototype-based call in PTX).
extern "C" __global__ void call_indirect(const float *a, const float *b, float *out, int which,
                                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    binop f = which == 0 ? op_add : which == 1 ? op_mul : op_max;
    out[i] = f(a[i], b[i]);
}

// A device function with a local array large enough to live in local memory (.local).
__device__ __noinline__ int sum_local_array(int seed)
{
    int buf[64];
    for (int i = 0; i < 64; ++i) buf[i] = seed * i + (i ^ seed);
    int s = 0;
    for (int i = 63; i >= 0; i -= (seed & 3) + 1) s += buf[i];
    return s;
}

extern "C" __global__ void local_memory(int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = sum_local_array(t);
}
