// A driver-API launch no device can run (a block of 2048 threads, a grid 70000 blocks high)
// is CUDA_ERROR_INVALID_VALUE, as NVIDIA's driver answers driver-API programs, and leaves the
// context usable: a valid launch afterwards runs. Usage: launch_config KERNELS.ptx
#include "check.h"

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CUcontext ctx;
    CUmodule module = open_module(argv[1], &ctx);
    CUfunction add_one;
    CHECK(cuModuleGetFunction(&add_one, module, "add_one"));
    CUdeviceptr values;
    int n = 64, zeros[64] = {0};
    CHECK(cuMemAlloc(&values, sizeof zeros));
    CHECK(cuMemcpyHtoD(values, zeros, sizeof zeros));
    void *params[] = {&values, &n};
    CUresult big_block = cuLaunchKernel(add_one, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL);
    CUresult tall_grid = cuLaunchKernel(add_one, 1, 70000, 1, 32, 1, 1, 0, NULL, params, NULL);
    const char *big_name = "?", *tall_name = "?";
    cuGetErrorName(big_block, &big_name);
    cuGetErrorName(tall_grid, &tall_name);
    printf("block 2048: %s; grid y 70000: %s\n", big_name, tall_name);
    EXPECT(big_block == CUDA_ERROR_INVALID_VALUE && tall_grid == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuLaunchKernel(add_one, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
    int out[64];
    CHECK(cuMemcpyDtoH(out, values, sizeof out));
    for (int i = 0; i < 64; i++) EXPECT(out[i] == 1);
    CHECK(cuMemFree(values));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    printf("launch_config: ok\n");
    return 0;
}
