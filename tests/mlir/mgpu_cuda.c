/*
 * A minimal reference implementation of MLIR's mgpu* C ABI over the CUDA driver API, following
 * upstream's CudaRuntimeWrappers.cpp (LLVM 22): errors are printed and execution continues,
 * every call makes the primary context of the default device current for its duration.
 * libcuda.so.1 is loaded with dlopen, so this builds without a CUDA toolkit (only cuda.h).
 * Used by scripts/gpu/run_mlir.sh to check the expected outputs of tests/mlir/ on a real GPU;
 * it is a yardstick for chevron-capi, not part of it.
 */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cuda.h maps e.g. cuMemAlloc to cuMemAlloc_v2; XSTR gives the mapped symbol name. */
#define STR(x) #x
#define XSTR(x) STR(x)

#define CU_FUNCTIONS(X)                                                                            \
    X(cuInit) X(cuGetErrorName) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain)                        \
    X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuModuleLoadData) X(cuModuleLoadDataEx)              \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel) X(cuLaunchKernelEx)                \
    X(cuFuncSetAttribute) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)             \
    X(cuStreamWaitEvent) X(cuEventCreate) X(cuEventDestroy) X(cuEventSynchronize)                 \
    X(cuEventRecord) X(cuMemAlloc) X(cuMemAllocManaged) X(cuMemFree) X(cuMemcpyAsync)             \
    X(cuMemsetD32Async) X(cuMemsetD16Async) X(cuMemHostRegister) X(cuMemHostUnregister)       \
    X(cuTensorMapEncodeTiled) X(cuMemcpyHtoD)

#define DECLARE(name) static __typeof__(name) *p_##name;
CU_FUNCTIONS(DECLARE)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CUcontext primary;
static int default_device;

static void load(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "mgpu_cuda: dlopen(libcuda.so.1): %s\n", dlerror());
        _exit(2); /* not exit(): the module dtor would re-enter pthread_once */
    }
#define LOAD(name)                                                                                 \
    p_##name = (__typeof__(name) *)dlsym(lib, XSTR(name));                                         \
    if (!p_##name) fprintf(stderr, "mgpu_cuda: %s not found\n", XSTR(name));
    CU_FUNCTIONS(LOAD)
    CUdevice dev;
    if (p_cuInit(0) || p_cuDeviceGet(&dev, default_device) ||
        p_cuDevicePrimaryCtxRetain(&primary, dev)) {
        fprintf(stderr, "mgpu_cuda: no CUDA device\n");
        _exit(2);
    }
}

static void check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS) return;
    const char *name = "?";
    if (p_cuGetErrorName) p_cuGetErrorName(r, &name);
    fprintf(stderr, "'%s' failed with '%s'\n", what, name);
}

#define CALL(expr) check(p_##expr, #expr)

/* Like upstream's ScopedContext: push the primary context, pop it at the end. */
static void enter(void)
{
    pthread_once(&once, load);
    CALL(cuCtxPushCurrent(primary));
}

static void leave(void)
{
    CUcontext ctx;
    CALL(cuCtxPopCurrent(&ctx));
}

CUmodule mgpuModuleLoad(void *data, size_t size)
{
    (void)size;
    CUmodule m = NULL;
    enter();
    CALL(cuModuleLoadData(&m, data));
    leave();
    return m;
}

CUmodule mgpuModuleLoadJIT(void *data, int opt_level)
{
    CUmodule m = NULL;
    char log[4096] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_OPTIMIZATION_LEVEL};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log, (void *)(uintptr_t)opt_level};
    enter();
    CALL(cuModuleLoadDataEx(&m, data, 3, opts, vals));
    if (log[0]) fprintf(stderr, "JIT log: %s\n", log);
    leave();
    return m;
}

void mgpuModuleUnload(CUmodule m)
{
    enter();
    CALL(cuModuleUnload(m));
    leave();
}

CUfunction mgpuModuleGetFunction(CUmodule m, const char *name)
{
    CUfunction f = NULL;
    enter();
    CALL(cuModuleGetFunction(&f, m, name));
    leave();
    return f;
}

void mgpuLaunchKernel(CUfunction f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx,
                      intptr_t by, intptr_t bz, int32_t smem, CUstream stream, void **params,
                      void **extra, size_t nparams)
{
    (void)nparams;
    enter();
    if (smem > 0)
        CALL(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    CALL(cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra));
    leave();
}

/* LLVM 22 passes 14 arguments (no paramsCount). */
void mgpuLaunchClusterKernel(CUfunction f, intptr_t cx, intptr_t cy, intptr_t cz, intptr_t gx,
                             intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by, intptr_t bz,
                             int32_t smem, CUstream stream, void **params, void **extra)
{
    CUlaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[0].value.clusterDim.x = cx;
    attrs[0].value.clusterDim.y = cy;
    attrs[0].value.clusterDim.z = cz;
    attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    attrs[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
    CUlaunchConfig config = {
        .gridDimX = gx, .gridDimY = gy, .gridDimZ = gz,
        .blockDimX = bx, .blockDimY = by, .blockDimZ = bz,
        .sharedMemBytes = smem, .hStream = stream, .attrs = attrs, .numAttrs = 2,
    };
    enter();
    if (smem > 0)
        CALL(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    CALL(cuLaunchKernelEx(&config, f, params, extra));
    leave();
}

CUstream mgpuStreamCreate(void)
{
    CUstream s = NULL;
    enter();
    CALL(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    leave();
    return s;
}

void mgpuStreamDestroy(CUstream s)
{
    enter();
    CALL(cuStreamDestroy(s));
    leave();
}

void mgpuStreamSynchronize(CUstream s)
{
    enter();
    CALL(cuStreamSynchronize(s));
    leave();
}

void mgpuStreamWaitEvent(CUstream s, CUevent e)
{
    enter();
    CALL(cuStreamWaitEvent(s, e, 0));
    leave();
}

CUevent mgpuEventCreate(void)
{
    CUevent e = NULL;
    enter();
    CALL(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    leave();
    return e;
}

void mgpuEventDestroy(CUevent e)
{
    enter();
    CALL(cuEventDestroy(e));
    leave();
}

void mgpuEventSynchronize(CUevent e)
{
    enter();
    CALL(cuEventSynchronize(e));
    leave();
}

void mgpuEventRecord(CUevent e, CUstream s)
{
    enter();
    CALL(cuEventRecord(e, s));
    leave();
}

void *mgpuMemAlloc(uint64_t size, CUstream stream, bool host_shared)
{
    (void)stream;
    CUdeviceptr p = 0;
    if (size == 0) return NULL;
    enter();
    if (host_shared)
        CALL(cuMemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL));
    else
        CALL(cuMemAlloc(&p, size));
    leave();
    return (void *)p;
}

void mgpuMemFree(void *p, CUstream stream)
{
    (void)stream;
    enter();
    CALL(cuMemFree((CUdeviceptr)p));
    leave();
}

void mgpuMemcpy(void *dst, void *src, size_t size, CUstream stream)
{
    enter();
    CALL(cuMemcpyAsync((CUdeviceptr)dst, (CUdeviceptr)src, size, stream));
    leave();
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, CUstream stream)
{
    enter();
    CALL(cuMemsetD32Async((CUdeviceptr)dst, value, count, stream));
    leave();
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, CUstream stream)
{
    enter();
    CALL(cuMemsetD16Async((CUdeviceptr)dst, value, count, stream));
    leave();
}

struct memref_desc {
    char *alloc;
    char *aligned;
    int64_t offset;
    int64_t dims[];
};

void mgpuMemHostRegisterMemRef(int64_t rank, struct memref_desc *d, int64_t elem)
{
    int64_t n = 1;
    for (int64_t i = 0; i < rank; i++) n *= d->dims[i];
    enter();
    CALL(cuMemHostRegister(d->aligned + d->offset * elem, n * elem, 0));
    leave();
}

void mgpuMemHostUnregisterMemRef(int64_t rank, struct memref_desc *d, int64_t elem)
{
    (void)rank;
    enter();
    CALL(cuMemHostUnregister(d->aligned + d->offset * elem));
    leave();
}

void mgpuSetDefaultDevice(int32_t device) { default_device = device; }

/* As upstream: the memref's sizes and strides innermost first, the box reversed, element strides
 * of 1; the descriptor is encoded on the host and copied into device memory that is never freed. */
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *ranked_desc, int64_t data_type,
                                     int64_t interleave, int64_t swizzle, int64_t l2_promotion,
                                     int64_t oob_fill, int64_t *box_dims)
{
    static const int element_bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    if (rank < 1 || rank > 5 || data_type < 0 || data_type > 12) return NULL;
    int64_t *words = (int64_t *)ranked_desc;
    void *address = (void *)words[1];
    cuuint64_t dims[5], strides[5];
    cuuint32_t box[5], element_strides[5];
    for (int64_t i = 0; i < rank; i++) {
        dims[i] = (cuuint64_t)words[3 + rank - 1 - i];
        strides[i] = (cuuint64_t)words[3 + rank + rank - 1 - i] * element_bytes[data_type];
        box[i] = (cuuint32_t)box_dims[rank - 1 - i];
        element_strides[i] = 1;
    }
    CUtensorMap map;
    enter();
    CALL(cuTensorMapEncodeTiled(&map, (CUtensorMapDataType)data_type, (cuuint32_t)rank, address,
                                dims, strides + 1, box, element_strides,
                                (CUtensorMapInterleave)interleave, (CUtensorMapSwizzle)swizzle,
                                (CUtensorMapL2promotion)l2_promotion,
                                (CUtensorMapFloatOOBfill)oob_fill));
    CUdeviceptr device = 0;
    CALL(cuMemAlloc(&device, sizeof map));
    CALL(cuMemcpyHtoD(device, &map, sizeof map));
    leave();
    return (void *)device;
}
