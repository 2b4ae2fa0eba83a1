// Shared-memory reductions and scans, block-wide barrier predicates.
extern "C" __global__ void block_reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

extern "C" __global__ void block_reduce_max_i32(const int *in, int *out, int n)
{
    __shared__ int buf[128];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : (int)0x80000000;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] = max(buf[t], buf[t + s]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

// Inclusive Hillis-Steele scan within one block of N threads.
template <typename T, int N>
__global__ void block_scan(const T *in, T *out, int n)
{
    __shared__ T buf[2][N];
    int t = threadIdx.x;
    int i = blockIdx.x * N + t;
    int cur = 0;
    buf[cur][t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int off = 1; off < N; off <<= 1) {
        T v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][t];
}

template __global__ void block_scan<int, 128>(const int *, int *, int);
template __global__ void block_scan<float, 256>(const float *, float *, int);

// __syncthreads_count / _or / _and: block-wide predicates.
extern "C" __global__ void barrier_predicates(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int positive = i < n && in[i] > 0;
    int count = __syncthreads_count(positive);
    int any = __syncthreads_or(positive);
    int all = __syncthreads_and(positive);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x + 0] = count;
        out[3 * blockIdx.x + 1] = any;
        out[3 * blockIdx.x + 2] = all;
    }
}
