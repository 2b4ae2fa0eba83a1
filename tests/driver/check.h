// Shared by the driver-API test programs: CHECK stops with the failing call, its CUresult name
// and line; EXPECT compares a value; read_file loads a code object, NUL-terminated;
// open_module sets up a context and a module.
#pragma once
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        CUresult check_rc = (call);                                                     \
        if (check_rc != CUDA_SUCCESS) {                                                 \
            const char *check_name = "?";                                               \
            cuGetErrorName(check_rc, &check_name);                                      \
            fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call,        \
                    check_name);                                                        \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define EXPECT(cond)                                                                    \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static inline char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "FAIL: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = (char *)malloc((size_t)len + 1);
    if (fread(data, 1, (size_t)len, f) != (size_t)len) exit(1);
    data[len] = 0;
    fclose(f);
    if (size) *size = (size_t)len;
    return data;
}

// Initialises the driver, creates a context on device 0 and loads the PTX file at `path`.
static inline CUmodule open_module(const char *path, CUcontext *ctx) {
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(ctx, NULL, 0, dev));
    char *ptx = read_file(path, NULL);
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    free(ptx);
    return module;
}
