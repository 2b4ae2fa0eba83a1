// Matrix transpose: naive, shared-memory tiles, and shared-memory tiles padded by one column to
// avoid bank conflicts (32x8 threads per 32x32 tile), at the transpose sample's 1024x1024.
#include <vector>
#include "../common/helpers.h"

constexpr int TILE = 32, ROWS = 8;

__global__ void transposeNaive(float *out, const float *in, int width, int height) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[x * height + y + j] = in[(y + j) * width + x];
}

template <int Pad>
__global__ void transposeShared(float *out, const float *in, int width, int height) {
    __shared__ float tile[TILE][TILE + Pad];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv) {
    int width = sizeArg(argc, argv, 1024), height = width;
    size_t bytes = (size_t)width * height * sizeof(float);
    std::vector<float> host(width * height), result(width * height);
    for (int i = 0; i < width * height; ++i) host[i] = (float)i;
    float *in, *out;
    checkCudaErrors(cudaMalloc(&in, bytes));
    checkCudaErrors(cudaMalloc(&out, bytes));
    checkCudaErrors(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    dim3 grid(width / TILE, height / TILE), block(TILE, ROWS);
    const char *names[] = {"naive", "shared", "shared, no bank conflicts"};
    bool ok = true;
    for (int k = 0; k < 3; ++k) {
        checkCudaErrors(cudaMemset(out, 0, bytes));
        EventTimer timer;
        timer.start();
        if (k == 0) transposeNaive<<<grid, block>>>(out, in, width, height);
        else if (k == 1) transposeShared<0><<<grid, block>>>(out, in, width, height);
        else transposeShared<1><<<grid, block>>>(out, in, width, height);
        float ms = timer.stop();
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
        bool good = true;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) good &= result[x * height + y] == host[y * width + x];
        printf("%-26s %s\n", names[k], good ? "ok" : "WRONG");
        printf("  time: %.3f ms, %.2f GB/s\n", ms, 2.0 * bytes / (ms * 1e6));
        ok &= good;
    }
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("transpose", ok);
}
