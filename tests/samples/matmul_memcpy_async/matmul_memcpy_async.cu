// Tiled matrix multiply staging tiles into shared memory with cuda::memcpy_async through a
// two-stage cuda::pipeline (cp.async on sm_80 and newer; samples.sh builds it for sm_80), so the
// next tile's copy overlaps the current tile's arithmetic.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <vector>
#include "../common/helpers.h"
namespace cg = cooperative_groups;

constexpr int TILE = 32, STAGES = 2;

__global__ void matmulPipelined(float *C, const float *A, const float *B, int n) {
    __shared__ float As[STAGES][TILE][TILE], Bs[STAGES][TILE][TILE];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto pipe = cuda::make_pipeline(block, &state);
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    int tiles = n / TILE;
    auto load = [&](int t) {
        int s = t % STAGES;
        pipe.producer_acquire();
        cuda::memcpy_async(&As[s][threadIdx.y][threadIdx.x], &A[row * n + t * TILE + threadIdx.x], sizeof(float), pipe);
        cuda::memcpy_async(&Bs[s][threadIdx.y][threadIdx.x], &B[(t * TILE + threadIdx.y) * n + col], sizeof(float), pipe);
        pipe.producer_commit();
    };
    float sum = 0;
    load(0);
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) load(t + 1);
        pipe.consumer_wait();
        block.sync();
        int s = t % STAGES;
        for (int k = 0; k < TILE; ++k) sum += As[s][threadIdx.y][k] * Bs[s][k][threadIdx.x];
        block.sync();
        pipe.consumer_release();
    }
    C[row * n + col] = sum;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 512);
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (int i = 0; i < n * n; ++i) { a[i] = (float)(i % 5 - 2); b[i] = (float)(i % 3 - 1); }
    float *dA, *dB, *dC;
    checkCudaErrors(cudaMalloc(&dA, n * n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dB, n * n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dC, n * n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dA, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dB, b.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    matmulPipelined<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(dC, dA, dB, n);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(c.data(), dC, n * n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            float ref = 0;
            for (int k = 0; k < n; ++k) ref += a[i * n + k] * b[k * n + j];
            wrong += ref != c[i * n + j];
        }
    printf("%dx%d: %d wrong elements\n", n, n, wrong);
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dB));
    checkCudaErrors(cudaFree(dC));
    return finish("matmul_memcpy_async", wrong == 0);
}
