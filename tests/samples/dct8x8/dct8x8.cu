// JPEG-style 8x8 DCT compression in the style of CUDA's dct8x8 sample: each 8x8 block of a
// grayscale image is transformed as C * X * C^T with the DCT matrix in __constant__ memory and
// the block in shared memory (one thread per coefficient), quantized with a JPEG table
// (__float2int_rn), dequantized and transformed back, then rounded to bytes. The host runs the
// same pipeline in double and checks the quantized coefficients (a coefficient on a rounding
// boundary may go either way: at most 0.1% may differ, by one step) and the reconstruction's PSNR.
// Default: 2048 x 2048 (arguments: width and height, multiples of 8).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

constexpr int BLOCK = 8;
__constant__ float DCTv8matrix[BLOCK * BLOCK];
__constant__ short Q[BLOCK * BLOCK];

static const short kQuant[BLOCK * BLOCK] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                                            14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                                            18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                                            49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};

// out = A * B (transposeA: A^T * B; transposeB: A * B^T) for 8x8 tiles, one element per thread.
__device__ float tileProduct(const float (*a)[BLOCK], const float (*b)[BLOCK], bool transposeA, bool transposeB,
                             int row, int col) {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < BLOCK; ++k) s += (transposeA ? a[k][row] : a[row][k]) * (transposeB ? b[col][k] : b[k][col]);
    return s;
}

// Forward DCT and quantization: coefficients q = round(C X C^T / Q).
__global__ void dctQuantize(const unsigned char *image, int width, short *coeff) {
    __shared__ float c[BLOCK][BLOCK], x[BLOCK][BLOCK], t[BLOCK][BLOCK];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = blockIdx.x * BLOCK + tx, gy = blockIdx.y * BLOCK + ty;
    c[ty][tx] = DCTv8matrix[ty * BLOCK + tx];
    x[ty][tx] = float(image[gy * width + gx]) - 128.f;
    __syncthreads();
    t[ty][tx] = tileProduct(c, x, false, false, ty, tx); // C X
    __syncthreads();
    float v = tileProduct(t, c, false, true, ty, tx); // (C X) C^T
    coeff[gy * width + gx] = short(__float2int_rn(v / Q[ty * BLOCK + tx]));
}

// Dequantization and inverse DCT: X = C^T (q Q) C, rounded and clamped to bytes.
__global__ void dequantizeIdct(const short *coeff, int width, unsigned char *image) {
    __shared__ float c[BLOCK][BLOCK], y[BLOCK][BLOCK], t[BLOCK][BLOCK];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = blockIdx.x * BLOCK + tx, gy = blockIdx.y * BLOCK + ty;
    c[ty][tx] = DCTv8matrix[ty * BLOCK + tx];
    y[ty][tx] = float(coeff[gy * width + gx]) * Q[ty * BLOCK + tx];
    __syncthreads();
    t[ty][tx] = tileProduct(c, y, true, false, ty, tx); // C^T Y
    __syncthreads();
    float v = tileProduct(t, c, false, false, ty, tx) + 128.f; // (C^T Y) C
    image[gy * width + gx] = (unsigned char)__float2int_rn(fminf(fmaxf(v, 0.f), 255.f));
}

int main(int argc, char **argv) {
    const int width = std::max(BLOCK, sizeArg(argc, argv, 2048) / BLOCK * BLOCK);
    const int height = std::max(BLOCK, (argc > 2 ? atoi(argv[2]) : width) / BLOCK * BLOCK);
    const size_t n = size_t(width) * height;
    float dct[BLOCK * BLOCK];
    for (int u = 0; u < BLOCK; ++u)
        for (int k = 0; k < BLOCK; ++k)
            dct[u * BLOCK + k] = float((u == 0 ? std::sqrt(1.0 / BLOCK) : std::sqrt(2.0 / BLOCK)) *
                                       std::cos((2 * k + 1) * u * M_PI / (2 * BLOCK)));
    checkCudaErrors(cudaMemcpyToSymbol(DCTv8matrix, dct, sizeof dct));
    checkCudaErrors(cudaMemcpyToSymbol(Q, kQuant, sizeof kQuant));

    // A smooth scene with edges and texture.
    std::vector<unsigned char> img(n);
    Lcg rng(23);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double v = 128 + 60 * std::sin(x * 0.01) * std::cos(y * 0.013) + ((x / 64 + y / 96) % 3 == 0 ? 40 : -20) +
                       int(rng.next() % 9) - 4;
            img[size_t(y) * width + x] = (unsigned char)std::min(255.0, std::max(0.0, v));
        }
    unsigned char *dImg, *dOut;
    short *dCoeff;
    checkCudaErrors(cudaMalloc(&dImg, n));
    checkCudaErrors(cudaMalloc(&dOut, n));
    checkCudaErrors(cudaMalloc(&dCoeff, n * sizeof(short)));
    checkCudaErrors(cudaMemcpy(dImg, img.data(), n, cudaMemcpyHostToDevice));
    dim3 block(BLOCK, BLOCK), grid(width / BLOCK, height / BLOCK);
    dctQuantize<<<grid, block>>>(dImg, width, dCoeff);
    checkCudaErrors(cudaGetLastError());
    dequantizeIdct<<<grid, block>>>(dCoeff, width, dOut);
    checkCudaErrors(cudaGetLastError());
    std::vector<short> coeff(n);
    std::vector<unsigned char> out(n);
    checkCudaErrors(cudaMemcpy(coeff.data(), dCoeff, n * sizeof(short), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(out.data(), dOut, n, cudaMemcpyDeviceToHost));

    // Host pipeline in double, block by block.
    long long coeffOff = 0, coeffFar = 0, zeros = 0, pixelFar = 0;
    double se = 0;
    for (int by = 0; by < height; by += BLOCK)
        for (int bx = 0; bx < width; bx += BLOCK) {
            double x[BLOCK][BLOCK], t[BLOCK][BLOCK], y[BLOCK][BLOCK];
            for (int i = 0; i < BLOCK; ++i)
                for (int j = 0; j < BLOCK; ++j) x[i][j] = img[size_t(by + i) * width + bx + j] - 128.0;
            for (int i = 0; i < BLOCK; ++i)
                for (int j = 0; j < BLOCK; ++j) {
                    t[i][j] = 0;
                    for (int k = 0; k < BLOCK; ++k) t[i][j] += dct[i * BLOCK + k] * x[k][j];
                }
            for (int i = 0; i < BLOCK; ++i)
                for (int j = 0; j < BLOCK; ++j) {
                    double v = 0;
                    for (int k = 0; k < BLOCK; ++k) v += t[i][k] * dct[j * BLOCK + k];
                    int q = int(std::nearbyint(v / kQuant[i * BLOCK + j]));
                    int d = std::abs(q - coeff[size_t(by + i) * width + bx + j]);
                    coeffOff += d != 0, coeffFar += d > 1;
                    y[i][j] = double(coeff[size_t(by + i) * width + bx + j]) * kQuant[i * BLOCK + j];
                    zeros += coeff[size_t(by + i) * width + bx + j] == 0;
                }
            // Inverse of the device's coefficients, to check the reconstruction exactly up to rounding.
            for (int i = 0; i < BLOCK; ++i)
                for (int j = 0; j < BLOCK; ++j) {
                    t[i][j] = 0;
                    for (int k = 0; k < BLOCK; ++k) t[i][j] += dct[k * BLOCK + i] * y[k][j];
                }
            for (int i = 0; i < BLOCK; ++i)
                for (int j = 0; j < BLOCK; ++j) {
                    double v = 128;
                    for (int k = 0; k < BLOCK; ++k) v += t[i][k] * dct[k * BLOCK + j];
                    int want = int(std::nearbyint(std::min(255.0, std::max(0.0, v))));
                    int got = out[size_t(by + i) * width + bx + j];
                    pixelFar += std::abs(want - got) > 1;
                    double e = got - img[size_t(by + i) * width + bx + j];
                    se += e * e;
                }
        }
    const double psnr = 10 * std::log10(255.0 * 255.0 / (se / n));
    const bool ok = coeffFar == 0 && coeffOff * 1000 <= (long long)n && pixelFar == 0 && psnr > 30;
    printf("%d x %d, %lld of %zu coefficients quantized to zero, PSNR %.3f dB\n", width, height, zeros, n, psnr);
    printf("coefficients within one step of the host: %s, reconstruction within 1 of the host: %s\n",
           coeffFar == 0 && coeffOff * 1000 <= (long long)n ? "yes" : "NO", pixelFar == 0 ? "yes" : "NO");
    if (!ok) printf("coefficients off %lld (far %lld), pixels far %lld\n", coeffOff, coeffFar, pixelFar);
    checkCudaErrors(cudaFree(dImg));
    checkCudaErrors(cudaFree(dOut));
    checkCudaErrors(cudaFree(dCoeff));
    return finish("dct8x8", ok);
}
