// Single-precision GEMM (C = alpha A B + beta C, row-major) the way hand-tuned CUDA SGEMMs are
// written: 128x128 block tiles, 8-deep k slices staged in shared memory (A transposed on the
// way in), float4 vector loads from global and shared memory, and an 8x8 register tile of
// accumulators per thread (256 threads). The kernel is a template over the tile sizes; a
// simple one-element-per-thread kernel serves as a second device reference. Checked against
// a double-precision host product on sampled entries and against the simple kernel everywhere.
// Default: M = N = K = 1024.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(status)                                                                 \
    do {                                                                                   \
        cudaError_t s_ = (status);                                                         \
        if (s_ != cudaSuccess) {                                                           \
            fprintf(stderr, "CUDA API failed at %s:%d with %s\n", __FILE__, __LINE__,      \
                    cudaGetErrorString(s_));                                               \
            return EXIT_FAILURE;                                                           \
        }                                                                                  \
    } while (0)

#define FETCH_FLOAT4(p) (reinterpret_cast<float4 *>(&(p))[0])
#define FETCH_FLOAT4_CONST(p) (reinterpret_cast<const float4 *>(&(p))[0])

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemmTiled(int M, int N, int K, float alpha, const float *__restrict__ A,
               const float *__restrict__ B, float beta, float *__restrict__ C) {
    constexpr int kThreads = (BM / TM) * (BN / TN);
    __shared__ float As[BK][BM]; // transposed
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const float *a = A + size_t(blockIdx.y) * BM * K;
    const float *b = B + size_t(blockIdx.x) * BN;
    // Which float4 of the tiles each thread loads.
    const int aRow = threadIdx.x / (BK / 4), aCol = threadIdx.x % (BK / 4) * 4;
    const int bRow = threadIdx.x / (BN / 4), bCol = threadIdx.x % (BN / 4) * 4;
    constexpr int aStride = kThreads / (BK / 4), bStride = kThreads / (BN / 4);

    float acc[TM][TN] = {};
    float regA[TM], regB[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int r = 0; r < BM; r += aStride) {
            float4 v = FETCH_FLOAT4_CONST(a[size_t(aRow + r) * K + k0 + aCol]);
            As[aCol + 0][aRow + r] = v.x;
            As[aCol + 1][aRow + r] = v.y;
            As[aCol + 2][aRow + r] = v.z;
            As[aCol + 3][aRow + r] = v.w;
        }
        for (int r = 0; r < BK; r += bStride)
            FETCH_FLOAT4(Bs[bRow + r][bCol]) = FETCH_FLOAT4_CONST(b[size_t(k0 + bRow + r) * N + bCol]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) FETCH_FLOAT4(regA[i]) = FETCH_FLOAT4(As[k][ty * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4) FETCH_FLOAT4(regB[j]) = FETCH_FLOAT4(Bs[k][tx * TN + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(regA[i], regB[j], acc[i][j]);
        }
        __syncthreads();
    }
    float *c = C + (size_t(blockIdx.y) * BM + ty * TM) * N + size_t(blockIdx.x) * BN + tx * TN;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            float4 old = FETCH_FLOAT4(c[size_t(i) * N + j]);
            float4 v;
            v.x = alpha * acc[i][j + 0] + beta * old.x;
            v.y = alpha * acc[i][j + 1] + beta * old.y;
            v.z = alpha * acc[i][j + 2] + beta * old.z;
            v.w = alpha * acc[i][j + 3] + beta * old.w;
            FETCH_FLOAT4(c[size_t(i) * N + j]) = v;
        }
}

__global__ void sgemmNaive(int M, int N, int K, float alpha, const float *A, const float *B,
                           float beta, float *C) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float sum = 0.f;
    for (int k = 0; k < K; ++k) sum = fmaf(A[size_t(row) * K + k], B[size_t(k) * N + col], sum);
    C[size_t(row) * N + col] = alpha * sum + beta * C[size_t(row) * N + col];
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1024; // a multiple of 128
    const int M = n, N = n, K = n;
    const float alpha = 1.5f, beta = 0.5f;
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
    unsigned s = 11;
    auto rnd = [&s] { return ((s = s * 1664525u + 1013904223u) >> 8) * (2.f / 16777216.f) - 1.f; };
    for (auto &v : A) v = rnd();
    for (auto &v : B) v = rnd();
    for (auto &v : C) v = rnd();
    float *dA, *dB, *dC, *dRef;
    CUDA_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dRef, C.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dRef, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));

    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    dim3 grid(N / BN, M / BM);
    sgemmTiled<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(M, N, K, alpha, dA, dB, beta, dC);
    CUDA_CHECK(cudaGetLastError());
    sgemmNaive<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(M, N, K, alpha, dA, dB, beta, dRef);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> out(C.size()), ref(C.size());
    CUDA_CHECK(cudaMemcpy(out.data(), dC, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ref.data(), dRef, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));

    // Both kernels against each other everywhere (same products, other summation order).
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i) worst = std::max(worst, double(std::fabs(out[i] - ref[i])));
    // Sampled entries against double precision.
    double worstHost = 0;
    for (int t = 0; t < 4096; ++t) {
        int i = (t * 7919) % M, j = (t * 104729) % N;
        double sum = 0;
        for (int k = 0; k < K; ++k) sum += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
        double want = alpha * sum + beta * C[size_t(i) * N + j];
        worstHost = std::max(worstHost, std::fabs(out[size_t(i) * N + j] - want));
    }
    // Rounding error grows like sqrt(K) * eps * |terms|.
    const double bound = 2e-6 * K;
    bool ok = worst < bound && worstHost < bound;
    printf("M=N=K=%d, alpha %.1f, beta %.1f\n", n, alpha, beta);
    printf("register-tiled vs naive kernel: %s; vs double host on 4096 entries: %s\n",
           worst < bound ? "within bound" : "OFF", worstHost < bound ? "within bound" : "OFF");
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    CUDA_CHECK(cudaFree(dRef));
    printf("sgemm_register_tiled: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
