// The runtime and the driver in one program share one state: a cudaMalloc pointer in
// cuLaunchKernel, a cudaStream_t as a CUstream, cuCtxGetCurrent giving the runtime's primary
// context, a cuMemAlloc pointer in cudaMemcpy, a CUevent in cudaEventSynchronize.
// Usage: mixed KERNELS.ptx
#include <cuda_runtime_api.h>

#include "check.h"

#define RT(call)                                                                        \
    do {                                                                                \
        cudaError_t rt_rc = (call);                                                     \
        if (rt_rc != cudaSuccess) {                                                     \
            fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call,        \
                    cudaGetErrorName(rt_rc));                                           \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    // The runtime first: it initialises the driver and binds the primary context.
    int *values;
    RT(cudaMalloc((void **)&values, 256 * sizeof(int)));
    CUcontext current = NULL, primary = NULL;
    CHECK(cuCtxGetCurrent(&current));
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    EXPECT(current != NULL && current == primary);
    int host[256];
    for (int i = 0; i < 256; i++) host[i] = i;
    RT(cudaMemcpy(values, host, sizeof host, cudaMemcpyHostToDevice));

    char *ptx = read_file(argv[1], NULL);
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction add_one;
    CHECK(cuModuleGetFunction(&add_one, module, "add_one"));
    cudaStream_t stream;
    RT(cudaStreamCreate(&stream));
    CUdeviceptr dptr = (CUdeviceptr)(uintptr_t)values;
    int n = 256;
    void *params[] = {&dptr, &n};
    CHECK(cuLaunchKernel(add_one, 1, 1, 1, 256, 1, 1, 0, (CUstream)stream, params, NULL));
    CUevent event;
    CHECK(cuEventCreate(&event, CU_EVENT_DEFAULT));
    CHECK(cuEventRecord(event, (CUstream)stream));
    RT(cudaEventSynchronize((cudaEvent_t)event));
    RT(cudaMemcpy(host, values, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; i++) EXPECT(host[i] == i + 1);

    // A driver allocation through the runtime's copy and attribute calls.
    CUdeviceptr other;
    CHECK(cuMemAlloc(&other, sizeof host));
    RT(cudaMemcpy((void *)(uintptr_t)other, values, sizeof host, cudaMemcpyDefault));
    CHECK(cuMemcpyDtoH(host, other, sizeof host));
    EXPECT(host[255] == 256);
    int device = -1;
    RT(cudaGetDevice(&device));
    CUdevice ctx_device = -1;
    CHECK(cuCtxGetDevice(&ctx_device));
    EXPECT(device == ctx_device);
    RT(cudaStreamDestroy(stream));
    RT(cudaFree(values));
    CHECK(cuMemFree(other));
    printf("mixed: ok\n");
    return 0;
}
