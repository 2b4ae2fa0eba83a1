// The cost of chevron's driver library in one process: under `chevron exec --device cuda`, the
// program's cuLaunchKernel is chevron's; NVIDIA's driver, opened by its path (NVIDIA_LIBCUDA),
// is called directly on a module of its own. Bursts of 256 launches of an empty kernel
// alternate between the two; prints the median nanoseconds per launch of each and their ratio.
// Run natively, both sides are NVIDIA's (a ratio near 1 checks the method).
//   cc -O2 -I$CUDA/include launch_inproc.c -lcuda -ldl -o launch_inproc
//   NVIDIA_LIBCUDA=/usr/lib/x86_64-linux-gnu/libcuda.so.1 chevron exec --device cuda ./launch_inproc
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BURST 256
#define BURSTS 200

static const char ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                          ".visible .entry empty(.param .u64 p)\n{\n    ret;\n}\n";

#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "%s failed: %d\n", #call, (int)r_); return 1; } } while (0)

typedef CUresult (*init_t)(unsigned);
typedef CUresult (*device_get_t)(CUdevice*, int);
typedef CUresult (*retain_t)(CUcontext*, CUdevice);
typedef CUresult (*set_current_t)(CUcontext);
typedef CUresult (*load_t)(CUmodule*, const void*);
typedef CUresult (*get_function_t)(CUfunction*, CUmodule, const char*);
typedef CUresult (*stream_create_t)(CUstream*, unsigned);
typedef CUresult (*synchronize_t)(CUstream);
typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**);

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static int by_value(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(void) {
    const char* path = getenv("NVIDIA_LIBCUDA");
    void* nv = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!nv) { fprintf(stderr, "set NVIDIA_LIBCUDA to NVIDIA's libcuda.so.1: %s\n", dlerror()); return 2; }
    init_t nv_init = (init_t)dlsym(nv, "cuInit");
    device_get_t nv_device_get = (device_get_t)dlsym(nv, "cuDeviceGet");
    retain_t nv_retain = (retain_t)dlsym(nv, "cuDevicePrimaryCtxRetain");
    set_current_t nv_set_current = (set_current_t)dlsym(nv, "cuCtxSetCurrent");
    load_t nv_load = (load_t)dlsym(nv, "cuModuleLoadData");
    get_function_t nv_get_function = (get_function_t)dlsym(nv, "cuModuleGetFunction");
    stream_create_t nv_stream_create = (stream_create_t)dlsym(nv, "cuStreamCreate");
    synchronize_t nv_synchronize = (synchronize_t)dlsym(nv, "cuStreamSynchronize");
    launch_t nv_launch = (launch_t)dlsym(nv, "cuLaunchKernel");
    CUdevice device, nv_device;
    CUcontext context, nv_context;
    CUmodule module, nv_module;
    CUfunction function, nv_function;
    CUstream stream, nv_stream;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&function, module, "empty"));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(nv_init(0));
    CHECK(nv_device_get(&nv_device, 0));
    CHECK(nv_retain(&nv_context, nv_device));
    CHECK(nv_set_current(nv_context));
    CHECK(nv_load(&nv_module, ptx));
    CHECK(nv_get_function(&nv_function, nv_module, "empty"));
    CHECK(nv_stream_create(&nv_stream, CU_STREAM_NON_BLOCKING));
    uint64_t argument = 0;
    void* params[] = {&argument};
    static double mine[BURSTS], theirs[BURSTS];
    for (int b = -20; b < BURSTS; b++) {
        uint64_t start = now_ns();
        for (int i = 0; i < BURST; i++)
            CHECK(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
        uint64_t middle = now_ns();
        CHECK(cuStreamSynchronize(stream));
        uint64_t resumed = now_ns();
        for (int i = 0; i < BURST; i++)
            CHECK(nv_launch(nv_function, 1, 1, 1, 32, 1, 1, 0, nv_stream, params, NULL));
        uint64_t end = now_ns();
        CHECK(nv_synchronize(nv_stream));
        if (b >= 0) {
            mine[b] = (double)(middle - start) / BURST;
            theirs[b] = (double)(end - resumed) / BURST;
        }
    }
    qsort(mine, BURSTS, sizeof(double), by_value);
    qsort(theirs, BURSTS, sizeof(double), by_value);
    printf("in one process: program's cuLaunchKernel %.1f ns, NVIDIA's called directly %.1f ns, "
           "ratio %.3f\n", mine[BURSTS / 2], theirs[BURSTS / 2], mine[BURSTS / 2] / theirs[BURSTS / 2]);
    return 0;
}
