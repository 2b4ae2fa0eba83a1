// Matrix transpose through shared-memory tiles (32x32 tiles padded by one column, 32x8 threads
// per block, each moving four rows), as in CUDA's transpose sample, on a 2048x2048 float
// matrix, repeated. Checked element by element against the host.
// Usage: perf_transpose [side] [repetitions]
#include <vector>
#include "perf_common.h"

constexpr int kTile = 32, kRows = 8;

__global__ void transpose(float *out, const float *in, int side) {
    __shared__ float tile[kTile][kTile + 1];
    int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows)
        if (x < side && y + j < side) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * side + x];
    __syncthreads();
    x = blockIdx.y * kTile + threadIdx.x;
    y = blockIdx.x * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kRows)
        if (x < side && y + j < side) out[(y + j) * side + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv) {
    int side = (int)argOr(argc, argv, 1, 2048);
    int repetitions = (int)argOr(argc, argv, 2, 10);
    size_t count = (size_t)side * side, bytes = count * sizeof(float);
    std::vector<float> host(count), result(count);
    for (size_t i = 0; i < count; ++i) host[i] = (float)(i % 65521);
    float *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    dim3 grid((side + kTile - 1) / kTile, (side + kTile - 1) / kTile), block(kTile, kRows);
    for (int r = 0; r < repetitions; ++r) {
        transpose<<<grid, block>>>(out, in, side);
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) wrong += result[(size_t)x * side + y] != host[(size_t)y * side + x];
    printf("transpose %dx%d x %d: %zu wrong\n", side, side, repetitions, wrong);
    return finish("perf_transpose", wrong == 0);
}
