// Half-precision GEMM on tensor cores through the WMMA API, in the style of CUDA's
// simpleTensorCoreGEMM sample, at nvcc's default architecture (sm_75): each warp computes a
// 16 x 16 tile of D = alpha * A * B + beta * C, loading 16 x 16 fragments of A (row major) and
// B (column major) along K, accumulating in float with mma_sync, then scaling with C loaded
// as an accumulator fragment. The inputs are multiples of 1/8 so every product and partial sum
// is exact in float: the result must equal a host GEMM bit for bit.
// Default: M = N = K = 1024 (argument: the size, a multiple of 16).
#include <cuda_fp16.h>
#include <mma.h>
#include <algorithm>
#include <vector>
#include "../common/helpers.h"
using namespace nvcuda;

constexpr int WMMA_M = 16, WMMA_N = 16, WMMA_K = 16;

__global__ void wmmaGemm(const half *a, const half *b, float *c, int M, int N, int K, float alpha, float beta) {
    const int lda = K, ldb = K, ldc = N; // A row major M x K, B column major K x N, C row major
    const int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> aFrag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> bFrag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> accFrag, cFrag;
    wmma::fill_fragment(accFrag, 0.0f);
    const int row = warpM * WMMA_M, col = warpN * WMMA_N;
    if (row >= M || col >= N) return;
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(aFrag, a + row * lda + k, lda);
        wmma::load_matrix_sync(bFrag, b + col * ldb + k, ldb);
        wmma::mma_sync(accFrag, aFrag, bFrag, accFrag);
    }
    wmma::load_matrix_sync(cFrag, c + row * ldc + col, ldc, wmma::mem_row_major);
    for (int i = 0; i < cFrag.num_elements; i++) cFrag.x[i] = alpha * accFrag.x[i] + beta * cFrag.x[i];
    wmma::store_matrix_sync(c + row * ldc + col, cFrag, ldc, wmma::mem_row_major);
}

int main(int argc, char **argv) {
    const int n = std::max(16, sizeArg(argc, argv, 1024) / 16 * 16), M = n, N = n, K = n;
    const float alpha = 2.0f, beta = 0.5f;
    std::vector<half> a(size_t(M) * K), b(size_t(K) * N);
    std::vector<float> af(a.size()), bf(b.size()), c(size_t(M) * N);
    Lcg rng(5);
    for (size_t i = 0; i < a.size(); ++i) af[i] = float(int(rng.next() % 17) - 8) / 8.f, a[i] = __float2half(af[i]);
    for (size_t i = 0; i < b.size(); ++i) bf[i] = float(int(rng.next() % 17) - 8) / 8.f, b[i] = __float2half(bf[i]);
    for (auto &v : c) v = float(int(rng.next() % 33) - 16) / 4.f;
    half *dA, *dB;
    float *dC;
    checkCudaErrors(cudaMalloc(&dA, a.size() * sizeof(half)));
    checkCudaErrors(cudaMalloc(&dB, b.size() * sizeof(half)));
    checkCudaErrors(cudaMalloc(&dC, c.size() * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dA, a.data(), a.size() * sizeof(half), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dB, b.data(), b.size() * sizeof(half), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dC, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
    // 128 x 4 threads: four warps along M and four along N per block, as the sample launches.
    dim3 block(128, 4), grid((M + (WMMA_M * block.x / 32) - 1) / (WMMA_M * block.x / 32),
                             (N + WMMA_N * block.y - 1) / (WMMA_N * block.y));
    EventTimer timer;
    timer.start();
    wmmaGemm<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
    checkCudaErrors(cudaGetLastError());
    float ms = timer.stop();
    std::vector<float> out(c.size());
    checkCudaErrors(cudaMemcpy(out.data(), dC, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long long wrong = 0;
    double total = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.f; // exact: multiples of 1/64 below 2^24 / 64
            for (int k = 0; k < K; ++k) s += af[size_t(i) * K + k] * bf[size_t(j) * K + k];
            float want = alpha * s + beta * c[size_t(i) * N + j];
            wrong += out[size_t(i) * N + j] != want;
            total += out[size_t(i) * N + j];
        }
    printf("%d x %d x %d half GEMM on WMMA fragments, time %s\n", M, N, K, ms >= 0 ? "ok" : "?");
    printf("sum of D %.4f, elements differing from the host %lld\n", total, wrong);
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dB));
    checkCudaErrors(cudaFree(dC));
    return finish("wmma_gemm", wrong == 0);
}
