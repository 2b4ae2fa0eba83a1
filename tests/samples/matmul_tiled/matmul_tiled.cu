// Tiled matrix multiply C = A * B in shared memory, templated over the tile size, at the
// matrixMul sample's default sizes (A 320x320, B 320x640 for tile 32).
#include <vector>
#include "../common/helpers.h"

template <int Tile>
__global__ void matrixMulTiled(float *C, const float *A, const float *B, int wA, int wB) {
    __shared__ float As[Tile][Tile];
    __shared__ float Bs[Tile][Tile];
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * Tile * by, aEnd = aBegin + wA - 1, bBegin = Tile * bx;
    float sum = 0.0f;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += Tile, b += Tile * wB) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < Tile; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[wB * Tile * by + Tile * bx + wB * ty + tx] = sum;
}

template <int Tile>
bool run(int hA, int wA, int wB) {
    std::vector<float> a(hA * wA), b(wA * wB), c(hA * wB);
    for (int i = 0; i < hA * wA; ++i) a[i] = (float)((i % 7) - 3) * 0.5f;
    for (int i = 0; i < wA * wB; ++i) b[i] = (float)((i % 5) - 2) * 0.25f;
    float *dA, *dB, *dC;
    checkCudaErrors(cudaMalloc(&dA, a.size() * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dB, b.size() * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dC, c.size() * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    dim3 threads(Tile, Tile), grid(wB / Tile, hA / Tile);
    EventTimer timer;
    timer.start();
    matrixMulTiled<Tile><<<grid, threads>>>(dC, dA, dB, wA, wB);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < hA && ok; ++i)
        for (int j = 0; j < wB; ++j) {
            double ref = 0;
            for (int k = 0; k < wA; ++k) ref += (double)a[i * wA + k] * b[k * wB + j];
            if (fabs(ref - c[i * wB + j]) > 1e-3) {
                printf("C[%d][%d] = %f, expected %f\n", i, j, c[i * wB + j], ref);
                ok = false;
                break;
            }
        }
    double gflop = 2.0 * hA * wA * wB * 1e-9;
    printf("tile %d: C = A(%dx%d) * B(%dx%d), C[0] = %.3f %s\n", Tile, hA, wA, wA, wB, c[0], ok ? "ok" : "WRONG");
    printf("tile %d time: %.3f ms, %.2f GFlop/s\n", Tile, ms, gflop / (ms * 1e-3));
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dB));
    checkCudaErrors(cudaFree(dC));
    return ok;
}

int main(int argc, char **argv) {
    int scale = sizeArg(argc, argv, 10);
    bool ok = run<32>(scale * 32, scale * 32, scale * 64);
    ok &= run<16>(scale * 16, scale * 16, scale * 32);
    return finish("matmul_tiled", ok);
}
