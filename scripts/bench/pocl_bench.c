/* The benchmark kernels on an OpenCL CPU device (POCL: Debian's pocl-opencl-icd; run with
 * POCL_MAX_PTHREAD_COUNT=1 for one thread), from kernels.cl (the path is the argument), the
 * same sizes and inputs as scripts/bench/default_mode.py. Prints "name milliseconds": the
 * median of 3 launches (launch + clFinish) after one warm-up launch, so POCL's compile (and
 * its kernel cache) is not counted. Build: gcc -O2 pocl_bench.c -lOpenCL. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cl_context context;
static cl_command_queue queue;
static cl_program program;

#define CHECK(call)                                                            \
    do {                                                                       \
        cl_int err_ = (call);                                                  \
        if (err_ != CL_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #call, err_); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum fill { ZEROS, IOTA_U32, IOTA_F32, ONES_F32 };

static cl_mem buffer(size_t count, enum fill fill) {
    uint32_t *host = malloc(count * 4);
    for (size_t i = 0; i < count; i++) {
        float f = fill == IOTA_F32 ? (float)i : 1.0f;
        if (fill == ZEROS) host[i] = 0;
        else if (fill == IOTA_U32) host[i] = (uint32_t)i;
        else memcpy(&host[i], &f, 4);
    }
    cl_int err;
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count * 4, host, &err);
    CHECK(err);
    free(host);
    return mem;
}

/* Runs `name` over global x local work sizes (2-D when gy > 0) with its arguments set. */
static void time_kernel(const char *name, cl_kernel kernel, size_t gx, size_t gy, size_t lx, size_t ly) {
    size_t global[2] = {gx, gy ? gy : 1}, local[2] = {lx, ly ? ly : 1};
    cl_uint dims = gy ? 2 : 1;
    double times[3];
    CHECK(clEnqueueNDRangeKernel(queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
    CHECK(clFinish(queue));
    for (int run = 0; run < 3; run++) {
        double start = now_ms();
        CHECK(clEnqueueNDRangeKernel(queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
        CHECK(clFinish(queue));
        times[run] = now_ms() - start;
    }
    qsort(times, 3, sizeof(double), by_value);
    printf("%s %.3f\n", name, times[1]);
    fflush(stdout);
}

static cl_kernel kernel_of(const char *name, int count, cl_mem *mems, const void **scalars) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    CHECK(err);
    for (int i = 0; i < count; i++) {
        if (mems[i]) CHECK(clSetKernelArg(kernel, i, sizeof(cl_mem), &mems[i]));
        else CHECK(clSetKernelArg(kernel, i, 4, scalars[i]));
    }
    return kernel;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s kernels.cl\n", argv[0]); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    static char source[1 << 16];
    size_t length = fread(source, 1, sizeof source - 1, file);
    fclose(file);
    const char *text = source;
    cl_platform_id platform;
    cl_device_id device;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
    cl_int err;
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    program = clCreateProgramWithSource(context, 1, &text, &length, &err);
    CHECK(err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        char log[8192];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    uint32_t n24 = 1u << 24, n23 = 1u << 23;
    float two = 2.0f;
    {
        cl_mem m[4] = {buffer(n24, IOTA_F32), buffer(n24, ONES_F32), 0, 0};
        const void *s[4] = {0, 0, &two, &n24};
        time_kernel("saxpy", kernel_of("saxpy", 4, m, s), n24, 0, 256, 0);
    }
    for (uint32_t size = 256; size <= 512; size *= 2) {
        cl_mem m[4] = {buffer(size * size, IOTA_F32), buffer(size * size, IOTA_F32), buffer(size * size, ZEROS), 0};
        const void *s[4] = {0, 0, 0, &size};
        time_kernel(size == 256 ? "matmul256" : "matmul512", kernel_of("matmul", 4, m, s), size, size, 16, 16);
    }
    cl_mem input = buffer(n23, IOTA_U32);
    {
        cl_mem m[2] = {input, buffer(n23 / 32, ZEROS)};
        time_kernel("block_sum", kernel_of("block_sum", 2, m, NULL), n23, 0, 256, 0);
        time_kernel("warp_sum", kernel_of("warp_sum", 2, m, NULL), n23, 0, 256, 0);
    }
    {
        cl_mem m[3] = {input, buffer(256, ZEROS), 0};
        const void *s[3] = {0, 0, &n23};
        time_kernel("histogram", kernel_of("histogram", 3, m, s), 64 * 256, 0, 256, 0);
    }
    {
        cl_mem m[2] = {buffer(1 << 22, IOTA_U32), buffer(1 << 22, ZEROS)};
        time_kernel("tile_scan", kernel_of("tile_scan", 2, m, NULL), 4096 * 256, 0, 256, 0);
    }
    {
        cl_mem m[1] = {buffer(1 << 20, IOTA_U32)};
        time_kernel("tile_radix_sort", kernel_of("tile_radix_sort", 1, m, NULL), 1 << 20, 0, 256, 0);
    }
    {
        uint32_t n = 2048;
        cl_mem m[3] = {buffer(n * n, IOTA_F32), buffer(n * n, ZEROS), 0};
        const void *s[3] = {0, 0, &n};
        time_kernel("transpose", kernel_of("transpose", 3, m, s), 64 * 32, 64 * 8, 32, 8);
    }
    return 0;
}
