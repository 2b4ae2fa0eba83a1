// Transformer-layer kernels in the style of inference runtimes: 16-byte vector loads of eight
// bf16 values, warp reductions by xor butterflies, dynamic shared memory for block partials,
// templates over the 16-bit element type, bf16x2 arithmetic.
#include "common.cuh"

// One warp per row; each lane loads 8 values at a time as a uint4.
__global__ void softmaxRows(const __nv_bfloat16 *__restrict__ in, __nv_bfloat16 *__restrict__ out,
                            int rows, int cols) {
    const int warpsPerBlock = blockDim.x / 32;
    const int row = blockIdx.x * warpsPerBlock + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const uint4 *src = reinterpret_cast<const uint4 *>(in + size_t(row) * cols);
    uint4 *dst = reinterpret_cast<uint4 *>(out + size_t(row) * cols);
    const int vecs = cols / 8;
    float m = -INFINITY;
    for (int v = lane; v < vecs; v += 32) {
        uint4 packed = __ldg(src + v);
        const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&packed);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float2 f = __bfloat1622float2(h[k]);
            m = fmaxf(m, fmaxf(f.x, f.y));
        }
    }
    m = warpAllReduceMax(m);
    float sum = 0.f;
    for (int v = lane; v < vecs; v += 32) {
        uint4 packed = __ldg(src + v);
        const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&packed);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float2 f = __bfloat1622float2(h[k]);
            sum += __expf(f.x - m) + __expf(f.y - m);
        }
    }
    const float inv = 1.f / warpAllReduceSum(sum);
    for (int v = lane; v < vecs; v += 32) {
        uint4 packed = __ldg(src + v);
        __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&packed);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float2 f = __bfloat1622float2(h[k]);
            h[k] = __floats2bfloat162_rn(__expf(f.x - m) * inv, __expf(f.y - m) * inv);
        }
        dst[v] = packed;
    }
}

// A block per row: sums of x and x^2 reduced by warps, then across warps through dynamic
// shared memory (one float2 per warp).
template <typename T>
__global__ void layerNormRows(const T *__restrict__ in, const T *__restrict__ gamma,
                              const T *__restrict__ beta, T *__restrict__ out, int cols) {
    extern __shared__ float2 partial[];
    __shared__ float2 stats;
    const T *x = in + size_t(blockIdx.x) * cols;
    float s = 0.f, s2 = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = Convert<T>::toFloat(x[c]);
        s += v;
        s2 += v * v;
    }
    s = warpAllReduceSum(s);
    s2 = warpAllReduceSum(s2);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) partial[warp] = make_float2(s, s2);
    __syncthreads();
    if (warp == 0) {
        float2 p = lane < blockDim.x / 32 ? partial[lane] : make_float2(0.f, 0.f);
        p.x = warpAllReduceSum(p.x);
        p.y = warpAllReduceSum(p.y);
        if (lane == 0) {
            float mean = p.x / cols;
            float var = fmaxf(p.y / cols - mean * mean, 0.f);
            stats = make_float2(mean, rsqrtf(var + 1e-5f));
        }
    }
    __syncthreads();
    T *y = out + size_t(blockIdx.x) * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = (Convert<T>::toFloat(x[c]) - stats.x) * stats.y;
        y[c] = Convert<T>::fromFloat(v * Convert<T>::toFloat(gamma[c]) +
                                     Convert<T>::toFloat(beta[c]));
    }
}

__device__ __forceinline__ float gelu(float x) {
    const float k = 0.7978845608f; // sqrt(2 / pi)
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void biasGelu(__nv_bfloat162 *x, const __nv_bfloat162 *__restrict__ bias, int n2,
                         int cols2) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += gridDim.x * blockDim.x) {
        __nv_bfloat162 v = __hadd2(x[i], bias[i % cols2]);
        float2 f = __bfloat1622float2(v);
        x[i] = __floats2bfloat162_rn(gelu(f.x), gelu(f.y));
    }
}

// y = W x with W in bf16 (row-major), a warp per row, float accumulation.
__global__ void gemvBf16(const __nv_bfloat16 *__restrict__ w, const float *__restrict__ x,
                         float *__restrict__ y, int rows, int cols) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const __nv_bfloat162 *w2 = reinterpret_cast<const __nv_bfloat162 *>(w + size_t(row) * cols);
    const float2 *x2 = reinterpret_cast<const float2 *>(x);
    float acc = 0.f;
    for (int c = lane; c < cols / 2; c += 32) {
        float2 wf = __bfloat1622float2(w2[c]);
        float2 xf = __ldg(x2 + c);
        acc = fmaf(wf.x, xf.x, acc);
        acc = fmaf(wf.y, xf.y, acc);
    }
    acc = warpAllReduceSum(acc);
    if (lane == 0) y[row] = acc;
}

void launchSoftmax(const __nv_bfloat16 *in, __nv_bfloat16 *out, int rows, int cols) {
    const int threads = 256;
    softmaxRows<<<(rows + threads / 32 - 1) / (threads / 32), threads>>>(in, out, rows, cols);
    CK(cudaGetLastError());
}

template <typename T>
void launchLayerNorm(const T *in, const T *gamma, const T *beta, T *out, int rows, int cols) {
    const int threads = 256;
    layerNormRows<T><<<rows, threads, (threads / 32) * sizeof(float2)>>>(in, gamma, beta, out, cols);
    CK(cudaGetLastError());
}
template void launchLayerNorm<__half>(const __half *, const __half *, const __half *, __half *,
                                      int, int);
template void launchLayerNorm<__nv_bfloat16>(const __nv_bfloat16 *, const __nv_bfloat16 *,
                                             const __nv_bfloat16 *, __nv_bfloat16 *, int, int);

void launchBiasGelu(__nv_bfloat162 *x, const __nv_bfloat162 *bias, int rows, int cols2) {
    int minGrid = 0, block = 0;
    CK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, biasGelu, 0, 0));
    biasGelu<<<minGrid, block>>>(x, bias, rows * cols2, cols2);
    CK(cudaGetLastError());
}

void launchGemv(const __nv_bfloat16 *w, const float *x, float *y, int rows, int cols) {
    gemvBf16<<<(rows + 7) / 8, 256>>>(w, x, y, rows, cols);
    CK(cudaGetLastError());
}
