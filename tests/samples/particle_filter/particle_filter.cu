// A particle filter in the style of Rodinia's particlefilter: particles tracking an object
// through noisy position measurements, each frame on the device: propagation with Rodinia's
// per-particle linear congruential generator and Box-Muller normals in double (log, cos, sqrt),
// a Gaussian likelihood (expf) multiplied into the weights, a block-wise weight sum, the
// normalization and the cumulative distribution (one thread, as Rodinia does), systematic
// resampling by binary search of the CDF, and the particles copied from their chosen parents.
// The host checks each frame's invariants with the device's own values (weights summing to one,
// a nondecreasing CDF, every chosen index the first CDF entry at or above its threshold, every
// resampled particle its parent) and that the estimate follows the object.
// Default: 32768 particles, 12 frames (arguments: particles, frames).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

constexpr int THREADS = 256;
constexpr long M = 2147483647, A = 1103515245, C = 12345; // Rodinia's generator
constexpr double PI = 3.1415926535897932;

__device__ double d_randu(int *seed, int index) {
    int num = A * seed[index] + C;
    seed[index] = num % M;
    return fabs(seed[index] / ((double)M));
}

__device__ double d_randn(int *seed, int index) {
    double u = d_randu(seed, index), v = d_randu(seed, index);
    double cosine = cos(2 * PI * v), rt = -2 * log(u);
    return sqrt(rt) * cosine;
}

// Moves each particle by the motion model and weighs it by the measurement (ox, oy).
__global__ void propagateAndWeigh(float *x, float *y, float *w, int *seed, int n, float vx, float vy, float ox,
                                  float oy, float sigma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    x[i] += vx + 2.0 * d_randn(seed, i);
    y[i] += vy + 2.0 * d_randn(seed, i);
    float dx = x[i] - ox, dy = y[i] - oy;
    w[i] *= expf(-(dx * dx + dy * dy) / (2.f * sigma * sigma));
}

__global__ void sumWeights(const float *w, int n, double *partial) {
    __shared__ double s[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? w[i] : 0.0;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Divides every weight by the total of the partial sums (added in block order by each block).
__global__ void normalize(float *w, const double *partial, int blocks, int n) {
    __shared__ double total;
    if (threadIdx.x == 0) {
        double t = 0;
        for (int b = 0; b < blocks; ++b) t += partial[b];
        total = t;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = float(w[i] / total);
}

// The CDF by one thread, and the resampling offset u1 (Rodinia's cdfCalc and u1).
__global__ void buildCdf(const float *w, float *cdf, int n, float *u1, int *seed) {
    cdf[0] = w[0];
    for (int k = 1; k < n; ++k) cdf[k] = w[k] + cdf[k - 1];
    *u1 = float((1.0 / n) * d_randu(seed, 0));
}

__device__ __host__ inline float threshold(float u1, int j, int n) { return u1 + j / ((float)n); }

// Systematic resampling: particle j takes the first parent whose CDF reaches u1 + j / n.
__global__ void resample(const float *cdf, const float *u1, const float *x, const float *y, float *xn, float *yn,
                         float *w, int *parent, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float u = threshold(*u1, j, n);
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] >= u) hi = mid;
        else lo = mid + 1;
    }
    parent[j] = lo;
    xn[j] = x[lo];
    yn[j] = y[lo];
    w[j] = 1.f / n;
}

template <typename T> static std::vector<T> fetch(const T *d, size_t n) {
    std::vector<T> h(n);
    checkCudaErrors(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main(int argc, char **argv) {
    const int n = std::max(THREADS, sizeArg(argc, argv, 32768)), frames = argc > 2 ? atoi(argv[2]) : 12;
    const int blocks = (n + THREADS - 1) / THREADS;
    const float vx = 2.f, vy = 1.f, sigma = 5.f;
    // The object's track and its noisy measurements.
    Lcg rng(8);
    std::vector<float> trueX(frames), trueY(frames), obsX(frames), obsY(frames);
    for (int f = 0; f < frames; ++f) {
        trueX[f] = 100.f + vx * (f + 1), trueY[f] = 80.f + vy * (f + 1);
        obsX[f] = trueX[f] + 3.f * (rng.uniform() - 0.5f), obsY[f] = trueY[f] + 3.f * (rng.uniform() - 0.5f);
    }
    std::vector<float> x(n, 100.f), y(n, 80.f), w(n, 1.f / n);
    std::vector<int> seed(n);
    for (int i = 0; i < n; ++i) seed[i] = int(rng.next() & 0x7fffffff);
    float *dX, *dY, *dXn, *dYn, *dW, *dCdf, *dU1;
    int *dSeed, *dParent;
    double *dPartial;
    for (float **p : {&dX, &dY, &dXn, &dYn, &dW, &dCdf}) checkCudaErrors(cudaMalloc(p, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dU1, sizeof(float)));
    checkCudaErrors(cudaMalloc(&dSeed, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dParent, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dPartial, blocks * sizeof(double)));
    checkCudaErrors(cudaMemcpy(dX, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dY, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dW, w.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dSeed, seed.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    long long bad = 0;
    double worstTrack = 0;
    for (int f = 0; f < frames; ++f) {
        propagateAndWeigh<<<blocks, THREADS>>>(dX, dY, dW, dSeed, n, vx, vy, obsX[f], obsY[f], sigma);
        checkCudaErrors(cudaGetLastError());
        sumWeights<<<blocks, THREADS>>>(dW, n, dPartial);
        normalize<<<blocks, THREADS>>>(dW, dPartial, blocks, n);
        buildCdf<<<1, 1>>>(dW, dCdf, n, dU1, dSeed);
        resample<<<blocks, THREADS>>>(dCdf, dU1, dX, dY, dXn, dYn, dW, dParent, n);
        checkCudaErrors(cudaGetLastError());
        // The frame's invariants, from the device's values.
        std::vector<float> px = fetch(dX, n), py = fetch(dY, n), cdf = fetch(dCdf, n), xn = fetch(dXn, n),
                           yn = fetch(dYn, n);
        std::vector<int> parent = fetch(dParent, n);
        float u1 = fetch(dU1, 1)[0];
        bad += std::fabs(cdf[n - 1] - 1.f) > 1e-3f || u1 < 0 || u1 > 1.f / n;
        for (int k = 1; k < n; ++k) bad += cdf[k] < cdf[k - 1];
        double mx = 0, my = 0;
        for (int j = 0; j < n; ++j) {
            float u = threshold(u1, j, n);
            int first = int(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
            first = std::min(first, n - 1);
            bad += parent[j] != first || xn[j] != px[parent[j]] || yn[j] != py[parent[j]];
            mx += xn[j], my += yn[j];
        }
        mx /= n, my /= n;
        worstTrack = std::max(worstTrack, std::hypot(mx - trueX[f], my - trueY[f]));
        printf("frame %2d: estimate (%.3f, %.3f), object (%.1f, %.1f)\n", f, mx, my, trueX[f], trueY[f]);
        std::swap(dX, dXn);
        std::swap(dY, dYn);
    }
    const bool ok = bad == 0 && worstTrack < 3.0;
    printf("%d particles, %d frames: invariants broken %lld, estimate within %s of the object\n", n, frames, bad,
           worstTrack < 3.0 ? "3 units" : "NOT");
    for (float *p : {dX, dY, dXn, dYn, dW, dCdf, dU1}) checkCudaErrors(cudaFree(p));
    checkCudaErrors(cudaFree(dSeed));
    checkCudaErrors(cudaFree(dParent));
    checkCudaErrors(cudaFree(dPartial));
    return finish("particle_filter", ok);
}
