// Modules from PTX, from a fatbin (in memory and from a file) and from a library; every launch
// form (kernelParams, the packed `extra` buffer, cuLaunchKernelEx, cooperative); globals,
// function attributes, occupancy, cuLink of two PTX units, and the error codes of misuse.
// Usage: modules KERNELS.ptx KERNELS.fatbin LINK_LIB.ptx LINK_MAIN.ptx
#include <string.h>

#include "check.h"

static void run_scale(CUfunction scale, float factor) {
    enum { N = 1000 };
    float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr x;
    CHECK(cuMemAlloc(&x, sizeof host));
    CHECK(cuMemcpyHtoD(x, host, sizeof host));
    int n = N;
    void *params[] = {&x, &factor, &n};
    CHECK(cuLaunchKernel(scale, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(host, x, sizeof host));
    for (int i = 0; i < N; i++) EXPECT(host[i] == (float)i * factor);
    CHECK(cuMemFree(x));
}

int main(int argc, char **argv) {
    EXPECT(argc == 5);
    int version = 0;
    CHECK(cuDriverGetVersion(&version));
    EXPECT(version == 13000);
    CUdevice dev;
    EXPECT(cuDeviceGet(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    EXPECT(cuDeviceGet(&dev, 99) == CUDA_ERROR_INVALID_DEVICE);
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    // PTX text.
    char *ptx = read_file(argv[1], NULL);
    CUmodule from_ptx;
    CHECK(cuModuleLoadData(&from_ptx, ptx));
    CUfunction scale;
    CHECK(cuModuleGetFunction(&scale, from_ptx, "scale"));
    run_scale(scale, 2.0f);
    CUfunction missing;
    EXPECT(cuModuleGetFunction(&missing, from_ptx, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);

    // A fatbin in memory, with cuModuleLoadDataEx, and from its file.
    char *fatbin = read_file(argv[2], NULL);
    CUmodule from_fatbin, from_file;
    CHECK(cuModuleLoadDataEx(&from_fatbin, fatbin, 0, NULL, NULL));
    CHECK(cuModuleLoad(&from_file, argv[2]));
    CUfunction scale_fb;
    CHECK(cuModuleGetFunction(&scale_fb, from_fatbin, "scale"));
    run_scale(scale_fb, 3.0f);
    EXPECT(cuModuleLoad(&from_file, "/nonexistent.cubin") == CUDA_ERROR_FILE_NOT_FOUND);

    // A library and its kernel.
    CUlibrary library;
    CHECK(cuLibraryLoadData(&library, fatbin, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel kernel;
    CHECK(cuLibraryGetKernel(&kernel, library, "scale"));
    CUfunction scale_lib;
    CHECK(cuKernelGetFunction(&scale_lib, kernel));
    run_scale(scale_lib, 0.5f);

    // A global, an atomic kernel, cooperative and extensible launches.
    CUdeviceptr counter, flag;
    size_t counter_bytes;
    CHECK(cuModuleGetGlobal(&counter, &counter_bytes, from_ptx, "counter"));
    EXPECT(counter_bytes == 4);
    CHECK(cuMemsetD32(counter, 0, 1));
    CHECK(cuMemAlloc(&flag, 4));
    CUfunction count;
    CHECK(cuModuleGetFunction(&count, from_ptx, "count"));
    void *count_params[] = {&flag};
    CHECK(cuLaunchCooperativeKernel(count, 4, 1, 1, 64, 1, 1, 0, NULL, count_params));
    CUlaunchConfig config;
    memset(&config, 0, sizeof config);
    config.gridDimX = 2;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 32;
    config.blockDimY = config.blockDimZ = 1;
    CHECK(cuLaunchKernelEx(&config, count, count_params, NULL));
    int counted = 0;
    CHECK(cuMemcpyDtoH(&counted, counter, 4));
    EXPECT(counted == 4 * 64 + 2 * 32);

    // The packed-buffer form: arguments at their ABI offsets.
    CUfunction mixed;
    CHECK(cuModuleGetFunction(&mixed, from_ptx, "mixed_args"));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 3 * sizeof(long long)));
    struct {
        char c;
        double d;
        short s;
        CUdeviceptr out;
    } packed = {'A', 12345.0, -7, out};
    size_t packed_size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &packed_size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    long long values[3];
    CHECK(cuMemcpyDtoH(values, out, sizeof values));
    EXPECT(values[0] == 'A' && values[1] == 12345 && values[2] == -7);

    // Attributes and occupancy.
    int threads = 0, shared = -1, blocks = 0, min_grid = 0, block = 0;
    CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, scale));
    EXPECT(threads >= 256);
    CUfunction block_sum;
    CHECK(cuModuleGetFunction(&block_sum, from_ptx, "block_sum"));
    CHECK(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, block_sum));
    EXPECT(shared == 1024);
    CHECK(cuFuncSetAttribute(block_sum, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096));
    CHECK(cuFuncSetCacheConfig(block_sum, CU_FUNC_CACHE_PREFER_SHARED));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, block_sum, 256, 0));
    EXPECT(blocks >= 1);
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, block_sum, NULL, 0, 256));
    EXPECT(block == 256 && min_grid >= 1);

    // cuLink: a kernel and the device function it calls, in two PTX units.
    size_t lib_size, main_size;
    char *lib_ptx = read_file(argv[3], &lib_size);
    char *main_ptx = read_file(argv[4], &main_size);
    CUlinkState link;
    CHECK(cuLinkCreate(0, NULL, NULL, &link));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, main_ptx, main_size + 1, "main", 0, NULL, NULL));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, lib_ptx, lib_size + 1, "lib", 0, NULL, NULL));
    void *image;
    size_t image_size;
    CHECK(cuLinkComplete(link, &image, &image_size));
    CUmodule linked;
    CHECK(cuModuleLoadData(&linked, image));
    CHECK(cuLinkDestroy(link));
    CUfunction tripled;
    CHECK(cuModuleGetFunction(&tripled, linked, "tripled"));
    int xs[64];
    for (int i = 0; i < 64; i++) xs[i] = i;
    CUdeviceptr dxs;
    CHECK(cuMemAlloc(&dxs, sizeof xs));
    CHECK(cuMemcpyHtoD(dxs, xs, sizeof xs));
    int n = 64;
    void *tripled_params[] = {&dxs, &n};
    CHECK(cuLaunchKernel(tripled, 1, 1, 1, 64, 1, 1, 0, NULL, tripled_params, NULL));
    CHECK(cuMemcpyDtoH(xs, dxs, sizeof xs));
    for (int i = 0; i < 64; i++) EXPECT(xs[i] == 3 * i);

    // Misuse: released handles and unknown codes.
    CHECK(cuModuleUnload(from_ptx));
    EXPECT(cuModuleGetFunction(&missing, from_ptx, "scale") == CUDA_ERROR_INVALID_HANDLE);
    float factor = 1.0f;
    void *stale[] = {&dxs, &factor, &n};
    EXPECT(cuLaunchKernel(scale, 1, 1, 1, 1, 1, 1, 0, NULL, stale, NULL) ==
           CUDA_ERROR_INVALID_HANDLE);
    const char *name = NULL;
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &name));
    EXPECT(strcmp(name, "CUDA_ERROR_INVALID_HANDLE") == 0);
    EXPECT(cuGetErrorName((CUresult)12345, &name) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(NULL, 4) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuArrayGetPlane(NULL, NULL, 0) != CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("modules: ok\n");
    return 0;
}
