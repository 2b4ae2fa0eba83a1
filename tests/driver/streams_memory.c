// Streams, events (elapsed time), stream callbacks and host functions; pinned, mapped,
// registered and managed memory used by kernels; fills of every width; pitched allocations,
// address ranges and pointer attributes. Usage: streams_memory KERNELS.ptx
#include <string.h>

#include "check.h"

static int callback_status = -1;
static int host_function_ran = 0;

static void CUDA_CB on_stream(CUstream stream, CUresult status, void *data) {
    (void)stream;
    callback_status = (int)status;
    *(int *)data += 1;
}

static void CUDA_CB on_host(void *data) { host_function_ran = *(int *)data; }

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    char *ptx = read_file(argv[1], NULL);
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction add_one, block_sum;
    CHECK(cuModuleGetFunction(&add_one, module, "add_one"));
    CHECK(cuModuleGetFunction(&block_sum, module, "block_sum"));

    // Two streams ordered by an event; timing events around the work.
    enum { N = 4096 };
    CUstream first, second;
    CHECK(cuStreamCreate(&first, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&second, CU_STREAM_DEFAULT));
    CUevent start, stop, done;
    CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    int *pinned;
    CHECK(cuMemAllocHost((void **)&pinned, N * sizeof(int)));
    for (int i = 0; i < N; i++) pinned[i] = i;
    CUdeviceptr in, sums;
    CHECK(cuMemAlloc(&in, N * sizeof(int)));
    CHECK(cuMemAlloc(&sums, (N / 256) * sizeof(int)));
    CHECK(cuEventRecord(start, first));
    CHECK(cuMemcpyHtoDAsync(in, pinned, N * sizeof(int), first));
    int n = N;
    void *add_params[] = {&in, &n};
    CHECK(cuLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, first, add_params, NULL));
    CHECK(cuEventRecord(done, first));
    CHECK(cuStreamWaitEvent(second, done, 0));
    void *sum_params[] = {&in, &sums};
    CHECK(cuLaunchKernel(block_sum, N / 256, 1, 1, 256, 1, 1, 0, second, sum_params, NULL));
    int calls = 0, marker = 42;
    CHECK(cuStreamAddCallback(second, on_stream, &calls, 0));
    CHECK(cuLaunchHostFunc(second, on_host, &marker));
    CHECK(cuEventRecord(stop, second));
    CHECK(cuEventSynchronize(stop));
    CHECK(cuStreamSynchronize(second));
    EXPECT(cuStreamQuery(second) == CUDA_SUCCESS);
    EXPECT(cuEventQuery(stop) == CUDA_SUCCESS);
    float ms = -1.0f;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f);
    EXPECT(cuEventElapsedTime(&ms, start, done) == CUDA_ERROR_INVALID_HANDLE);
    EXPECT(calls == 1 && callback_status == CUDA_SUCCESS && host_function_ran == 42);
    int partial[N / 256];
    CHECK(cuMemcpyDtoH(partial, sums, sizeof partial));
    for (int b = 0; b < N / 256; b++) {
        long expected = 0;
        for (int i = b * 256; i < (b + 1) * 256; i++) expected += i + 1;
        EXPECT(partial[b] == expected);
    }

    // Mapped pinned memory, registered memory and managed memory as kernel arguments.
    int *mapped;
    CHECK(cuMemHostAlloc((void **)&mapped, 256 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP));
    for (int i = 0; i < 256; i++) mapped[i] = 10 * i;
    CUdeviceptr mapped_dev;
    CHECK(cuMemHostGetDevicePointer(&mapped_dev, mapped, 0));
    int m = 256;
    void *mapped_params[] = {&mapped_dev, &m};
    CHECK(cuLaunchKernel(add_one, 1, 1, 1, 256, 1, 1, 0, NULL, mapped_params, NULL));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < 256; i++) EXPECT(mapped[i] == 10 * i + 1);
    static int registered[512];
    for (int i = 0; i < 512; i++) registered[i] = -i;
    CHECK(cuMemHostRegister(registered, sizeof registered, 0));
    CUdeviceptr registered_dev = (CUdeviceptr)(uintptr_t)registered;
    int r = 512;
    void *registered_params[] = {&registered_dev, &r};
    CHECK(cuLaunchKernel(add_one, 2, 1, 1, 256, 1, 1, 0, NULL, registered_params, NULL));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < 512; i++) EXPECT(registered[i] == 1 - i);
    CHECK(cuMemHostUnregister(registered));
    CUdeviceptr managed;
    CHECK(cuMemAllocManaged(&managed, 100 * sizeof(int), CU_MEM_ATTACH_GLOBAL));
    int *managed_host = (int *)(uintptr_t)managed;
    for (int i = 0; i < 100; i++) managed_host[i] = 7;
    int k = 100;
    void *managed_params[] = {&managed, &k};
    CHECK(cuLaunchKernel(add_one, 1, 1, 1, 128, 1, 1, 0, NULL, managed_params, NULL));
    CHECK(cuCtxSynchronize());
    for (int i = 0; i < 100; i++) EXPECT(managed_host[i] == 8);
    unsigned int type = 0;
    int is_managed = 0;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, managed));
    CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed));
    EXPECT(is_managed == 1);
    CHECK(cuMemFree(managed));

    // Fills of 1, 2 and 4 bytes, sync and async.
    CUdeviceptr fill;
    CHECK(cuMemAlloc(&fill, 64));
    CHECK(cuMemsetD8(fill, 0xab, 64));
    CHECK(cuMemsetD16Async(fill, 0x1234, 8, first));
    CHECK(cuMemsetD32Async(fill + 32, 0xdeadbeef, 4, first));
    CHECK(cuStreamSynchronize(first));
    unsigned char bytes[64];
    CHECK(cuMemcpyDtoH(bytes, fill, 64));
    EXPECT(bytes[0] == 0x34 && bytes[1] == 0x12 && bytes[15] == 0x12 && bytes[16] == 0xab);
    EXPECT(bytes[32] == 0xef && bytes[35] == 0xde && bytes[47] == 0xde && bytes[48] == 0xab);

    // Pitched memory, address ranges, pointer attributes, device-to-device copies.
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&pitched, &pitch, 100, 8, 4));
    EXPECT(pitch >= 100 && pitch % 4 == 0);
    CUdeviceptr base;
    size_t size = 0;
    CHECK(cuMemGetAddressRange(&base, &size, in + 100));
    EXPECT(base == in && size >= N * sizeof(int));
    CUcontext owner = NULL;
    int ordinal = -1;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, in));
    CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, in));
    CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, in));
    EXPECT(type == CU_MEMORYTYPE_DEVICE && owner != NULL && ordinal == 0);
    int stack_value = 0;
    EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 (CUdeviceptr)(uintptr_t)&stack_value) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemcpyDtoD(fill, in, 64));
    CHECK(cuMemcpyDtoH(bytes, fill, 64));
    EXPECT(((int *)bytes)[3] == 4);
    size_t free_bytes = 0, total_bytes = 0;
    CHECK(cuMemGetInfo(&free_bytes, &total_bytes));
    EXPECT(total_bytes > 0 && free_bytes <= total_bytes);

    // A destroyed handle is not used again: NVIDIA's driver does not check them (chevron does).
    CHECK(cuEventDestroy(start));
    CHECK(cuStreamDestroy(first));
    CHECK(cuStreamDestroy(second));
    CHECK(cuMemFreeHost(pinned));
    CHECK(cuMemFreeHost(mapped));
    CHECK(cuMemFree(in));
    CHECK(cuCtxDestroy(ctx));
    printf("streams_memory: ok\n");
    return 0;
}
