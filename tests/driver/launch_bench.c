// Launch cost of the driver API: bursts of 256 cuLaunchKernel calls of an empty kernel on one
// stream, the enqueue of each burst timed (the synchronisation after it is not), after a
// warm-up. Prints the median nanoseconds per launch over the bursts. Driver-neutral: the same
// binary runs on NVIDIA's libcuda.so.1 and on chevron's (`chevron exec`).
//
//   launch_bench [BURSTS [WARMUP]]      (defaults 200 and 20)
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define BURST 256

static const char empty_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry empty(.param .u64 p)\n"
    "{\n"
    "    ret;\n"
    "}\n";

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int bursts = argc > 1 ? atoi(argv[1]) : 200;
    int warmup = argc > 2 ? atoi(argv[2]) : 20;
    EXPECT(bursts > 0 && warmup >= 0);
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction function;
    CUstream stream;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CHECK(cuModuleLoadData(&module, empty_ptx));
    CHECK(cuModuleGetFunction(&function, module, "empty"));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    uint64_t argument = 0;
    void *params[] = {&argument};
    double *per_launch = (double *)malloc(sizeof(double) * (size_t)bursts);
    EXPECT(per_launch != NULL);
    for (int b = -warmup; b < bursts; b++) {
        uint64_t start = now_ns();
        for (int i = 0; i < BURST; i++) {
            CHECK(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
        }
        uint64_t end = now_ns();
        CHECK(cuStreamSynchronize(stream));
        if (b >= 0) per_launch[b] = (double)(end - start) / BURST;
    }
    qsort(per_launch, (size_t)bursts, sizeof(double), by_value);
    printf("launch_bench: median %.1f ns per cuLaunchKernel (%d bursts of %d)\n",
           per_launch[bursts / 2], bursts, BURST);
    free(per_launch);
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(device));
    printf("launch_bench: ok\n");
    return 0;
}
