// 2D Jacobi 5-point stencil (SHOC style) with a shared-memory tile and halo, iterated with
// ping-pong buffers; integer-valued data keeps the comparison exact.
#include <vector>
#include "../common/helpers.h"

constexpr int BX = 32, BY = 8;

__global__ void jacobi5(float *out, const float *in, int nx, int ny) {
    __shared__ float tile[BY + 2][BX + 2];
    int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    auto at = [&](int i, int j) { return (i >= 0 && i < nx && j >= 0 && j < ny) ? in[j * nx + i] : 0.0f; };
    tile[ty][tx] = at(x, y);
    if (threadIdx.x == 0) tile[ty][0] = at(x - 1, y);
    if (threadIdx.x == BX - 1) tile[ty][BX + 1] = at(x + 1, y);
    if (threadIdx.y == 0) tile[0][tx] = at(x, y - 1);
    if (threadIdx.y == BY - 1) tile[BY + 1][tx] = at(x, y + 1);
    __syncthreads();
    if (x < nx && y < ny)
        out[y * nx + x] = 4.0f * tile[ty][tx] - tile[ty][tx - 1] - tile[ty][tx + 1] - tile[ty - 1][tx] - tile[ty + 1][tx];
}

int main(int argc, char **argv) {
    int nx = sizeArg(argc, argv, 1024), ny = 1024, iterations = 4;
    std::vector<float> host(nx * ny), ref(nx * ny), tmp(nx * ny);
    for (int i = 0; i < nx * ny; ++i) host[i] = (float)((i * 31) % 7);
    float *a, *b;
    checkCudaErrors(cudaMalloc(&a, nx * ny * sizeof(float)));
    checkCudaErrors(cudaMalloc(&b, nx * ny * sizeof(float)));
    checkCudaErrors(cudaMemcpy(a, host.data(), nx * ny * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(BX, BY), grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    EventTimer timer;
    timer.start();
    for (int it = 0; it < iterations; ++it) {
        jacobi5<<<grid, block>>>(b, a, nx, ny);
        std::swap(a, b);
    }
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    std::vector<float> got(nx * ny);
    checkCudaErrors(cudaMemcpy(got.data(), a, nx * ny * sizeof(float), cudaMemcpyDeviceToHost));
    ref = host;
    for (int it = 0; it < iterations; ++it) {
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                auto at = [&](int i, int j) { return (i >= 0 && i < nx && j >= 0 && j < ny) ? ref[j * nx + i] : 0.0f; };
                tmp[y * nx + x] = 4.0f * at(x, y) - at(x - 1, y) - at(x + 1, y) - at(x, y - 1) - at(x, y + 1);
            }
        ref.swap(tmp);
    }
    bool ok = got == ref;
    printf("%dx%d, %d iterations: %s\n", nx, ny, iterations, ok ? "matches the host" : "DIFFERS");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(a));
    checkCudaErrors(cudaFree(b));
    return finish("stencil2d", ok);
}
