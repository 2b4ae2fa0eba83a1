// Launch configurations no device can run (a block of 2048 threads, a grid 70000 blocks high,
// a block of 64 x 32 threads) are cudaErrorInvalidValue (NVIDIA's CUDA 13 runtime, measured on
// an H200), reported by cudaGetLastError and cleared by it: a valid launch afterwards runs.
#include "check.h"
__global__ void mark(int* flag) { *flag = blockDim.x; }
int main() {
    int* flag;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    const dim3 grids[3] = {dim3(1), dim3(1, 70000), dim3(1)};
    const dim3 blocks[3] = {dim3(2048), dim3(32), dim3(64, 32)};
    bool ok = true;
    for (int i = 0; i < 3; ++i) {
        mark<<<grids[i], blocks[i]>>>(flag);
        cudaError_t launched = cudaGetLastError();
        cudaError_t after = cudaGetLastError();
        std::printf("grid (%u, %u), block (%u, %u): %s, then %s\n", grids[i].x, grids[i].y,
                    blocks[i].x, blocks[i].y, cudaGetErrorName(launched), cudaGetErrorName(after));
        ok = ok && launched == cudaErrorInvalidValue && after == cudaSuccess;
    }
    mark<<<1, 96>>>(flag);
    CHECK(cudaGetLastError());
    int threads = 0;
    CHECK(cudaMemcpy(&threads, flag, sizeof threads, cudaMemcpyDeviceToHost));
    std::printf("a valid launch afterwards saw %d threads\n", threads);
    CHECK(cudaFree(flag));
    ok = ok && threads == 96;
    std::printf("launch_config: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
