// The device pipeline: RGBA to gray with uchar4 loads, a separable 5-tap binomial blur through
// shared-memory tiles with clamped halos (taps in __constant__ memory), a Sobel magnitude read
// through __ldg, a 256-bin histogram with shared-memory atomics, its scan by one block, and the
// equalization lookup. Every stage is integer arithmetic, so the host reference is exact.
#include <algorithm>
#include "image.h"

__constant__ int c_taps[2 * kRadius + 1];

__global__ void rgbaToGray(const uchar4 *__restrict__ in, uint8_t *__restrict__ out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uchar4 p = in[i];
        out[i] = uint8_t((77 * p.x + 150 * p.y + 29 * p.z + 128) >> 8);
    }
}

__global__ void blurRows(const uint8_t *__restrict__ in, int *__restrict__ out, int w, int h) {
    __shared__ int tile[kTile][kTile + 2 * kRadius];
    int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
    int yy = min(y, h - 1);
    for (int lx = threadIdx.x; lx < kTile + 2 * kRadius; lx += kTile) {
        int gx = min(max(int(blockIdx.x * kTile) + lx - kRadius, 0), w - 1);
        tile[threadIdx.y][lx] = in[size_t(yy) * w + gx];
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    int sum = 0;
#pragma unroll
    for (int k = 0; k <= 2 * kRadius; ++k) sum += c_taps[k] * tile[threadIdx.y][threadIdx.x + k];
    out[size_t(y) * w + x] = sum;
}

__global__ void blurColumns(const int *__restrict__ in, uint8_t *__restrict__ out, int w, int h) {
    __shared__ int tile[kTile + 2 * kRadius][kTile];
    int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
    int xx = min(x, w - 1);
    for (int ly = threadIdx.y; ly < kTile + 2 * kRadius; ly += kTile) {
        int gy = min(max(int(blockIdx.y * kTile) + ly - kRadius, 0), h - 1);
        tile[ly][threadIdx.x] = in[size_t(gy) * w + xx];
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    int sum = 0;
#pragma unroll
    for (int k = 0; k <= 2 * kRadius; ++k) sum += c_taps[k] * tile[threadIdx.y + k][threadIdx.x];
    out[size_t(y) * w + x] = uint8_t((sum + 128) >> 8);
}

__device__ __forceinline__ int pixel(const uint8_t *img, int x, int y, int w, int h) {
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return __ldg(img + size_t(y) * w + x);
}

__global__ void sobelHistogram(const uint8_t *__restrict__ in, uint8_t *__restrict__ out,
                               unsigned *__restrict__ histogram, int w, int h) {
    __shared__ unsigned local[kBins];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int b = t; b < kBins; b += blockDim.x * blockDim.y) local[b] = 0;
    __syncthreads();
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int gx = pixel(in, x + 1, y - 1, w, h) + 2 * pixel(in, x + 1, y, w, h) +
                 pixel(in, x + 1, y + 1, w, h) - pixel(in, x - 1, y - 1, w, h) -
                 2 * pixel(in, x - 1, y, w, h) - pixel(in, x - 1, y + 1, w, h);
        int gy = pixel(in, x - 1, y + 1, w, h) + 2 * pixel(in, x, y + 1, w, h) +
                 pixel(in, x + 1, y + 1, w, h) - pixel(in, x - 1, y - 1, w, h) -
                 2 * pixel(in, x, y - 1, w, h) - pixel(in, x + 1, y - 1, w, h);
        int m = min(255, (abs(gx) + abs(gy)) / 2);
        out[size_t(y) * w + x] = uint8_t(m);
        atomicAdd(&local[m], 1u);
    }
    __syncthreads();
    for (int b = t; b < kBins; b += blockDim.x * blockDim.y)
        if (local[b]) atomicAdd(&histogram[b], local[b]);
}

// One block of kBins threads: the inclusive scan of the histogram (Hillis-Steele), then the
// lookup table of the equalization.
__global__ void equalizationTable(const unsigned *__restrict__ histogram, uint8_t *lut,
                                  unsigned long long total) {
    __shared__ unsigned cdf[kBins];
    __shared__ unsigned cdfMin;
    int b = threadIdx.x;
    cdf[b] = histogram[b];
    if (b == 0) cdfMin = 0;
    __syncthreads();
    for (int offset = 1; offset < kBins; offset <<= 1) {
        unsigned add = b >= offset ? cdf[b - offset] : 0;
        __syncthreads();
        cdf[b] += add;
        __syncthreads();
    }
    if (cdf[b] && (b == 0 || cdf[b - 1] == 0)) cdfMin = cdf[b];
    __syncthreads();
    unsigned long long num = (unsigned long long)(cdf[b] - cdfMin) * 255;
    unsigned long long den = total - cdfMin;
    lut[b] = uint8_t(den ? (num + den / 2) / den : 0);
}

__global__ void applyTable(const uchar4 *__restrict__ in, uchar4 *__restrict__ out,
                           const uint8_t *__restrict__ lut, int n4) {
    __shared__ uint8_t table[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) table[b] = lut[b];
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        uchar4 v = in[i];
        out[i] = make_uchar4(table[v.x], table[v.y], table[v.z], table[v.w]);
    }
}

PipelineResult runDevice(const Image &image) {
    const int w = image.width, h = image.height;
    const size_t n = size_t(w) * h;
    const int taps[2 * kRadius + 1] = {1, 4, 6, 4, 1};
    CUDA_CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));
    uchar4 *dRgba;
    uint8_t *dGray, *dBlur, *dEdges, *dEq, *dLut;
    int *dRows;
    unsigned *dHist;
    CUDA_CHECK(cudaMalloc(&dRgba, n * sizeof(uchar4)));
    CUDA_CHECK(cudaMalloc(&dGray, n));
    CUDA_CHECK(cudaMalloc(&dBlur, n));
    CUDA_CHECK(cudaMalloc(&dEdges, n));
    CUDA_CHECK(cudaMalloc(&dEq, n));
    CUDA_CHECK(cudaMalloc(&dLut, kBins));
    CUDA_CHECK(cudaMalloc(&dRows, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dHist, kBins * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(dRgba, image.pixels.data(), n * sizeof(uchar4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dHist, 0, kBins * sizeof(unsigned)));

    int minGrid = 0, block = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, rgbaToGray));
    int grid = int(std::min<size_t>((n + block - 1) / block, size_t(minGrid) * 4));
    rgbaToGray<<<grid, block>>>(dRgba, dGray, int(n));
    CUDA_CHECK(cudaGetLastError());
    dim3 tile(kTile, kTile), tiles((w + kTile - 1) / kTile, (h + kTile - 1) / kTile);
    blurRows<<<tiles, tile>>>(dGray, dRows, w, h);
    CUDA_CHECK(cudaGetLastError());
    blurColumns<<<tiles, tile>>>(dRows, dBlur, w, h);
    CUDA_CHECK(cudaGetLastError());
    sobelHistogram<<<tiles, tile>>>(dBlur, dEdges, dHist, w, h);
    CUDA_CHECK(cudaGetLastError());
    equalizationTable<<<1, kBins>>>(dHist, dLut, (unsigned long long)n);
    CUDA_CHECK(cudaGetLastError());
    applyTable<<<grid, block>>>(reinterpret_cast<const uchar4 *>(dEdges),
                                reinterpret_cast<uchar4 *>(dEq), dLut, int(n / 4));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    PipelineResult r;
    r.gray.resize(n);
    r.blurred.resize(n);
    r.edges.resize(n);
    r.equalized.resize(n);
    r.histogram.resize(kBins);
    CUDA_CHECK(cudaMemcpy(r.gray.data(), dGray, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.blurred.data(), dBlur, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.edges.data(), dEdges, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.equalized.data(), dEq, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r.histogram.data(), dHist, kBins * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    for (void *p : {(void *)dRgba, (void *)dGray, (void *)dBlur, (void *)dEdges, (void *)dEq,
                    (void *)dLut, (void *)dRows, (void *)dHist})
        CUDA_CHECK(cudaFree(p));
    return r;
}
