// The current-context stack is per thread: contexts pushed, popped and set on several threads,
// each launching in its own context; a thread with no context gets CUDA_ERROR_INVALID_CONTEXT.
// Usage: threads KERNELS.ptx
#include <pthread.h>

#include "check.h"

static CUcontext primary, created;
// A module belongs to the context it was loaded in: one copy of the kernel per context.
static CUfunction add_one_primary, add_one_created;

static void *worker(void *arg) {
    int index = (int)(intptr_t)arg;
    CUcontext current = (CUcontext)1;
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == NULL);  // a new thread starts without a context
    CUdeviceptr p;
    EXPECT(cuMemAlloc(&p, 4) == CUDA_ERROR_INVALID_CONTEXT);
    CUcontext mine = index % 2 ? created : primary;
    CHECK(cuCtxPushCurrent(mine));
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == mine);
    int values[256];
    for (int i = 0; i < 256; i++) values[i] = index * 1000 + i;
    CHECK(cuMemAlloc(&p, sizeof values));
    CHECK(cuMemcpyHtoD(p, values, sizeof values));
    int n = 256;
    void *params[] = {&p, &n};
    CUfunction add_one = index % 2 ? add_one_created : add_one_primary;
    for (int round = 0; round < 10; round++)
        CHECK(cuLaunchKernel(add_one, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(values, p, sizeof values));
    for (int i = 0; i < 256; i++) EXPECT(values[i] == index * 1000 + i + 10);
    CHECK(cuMemFree(p));
    CUcontext popped = NULL;
    CHECK(cuCtxPopCurrent(&popped));
    EXPECT(popped == mine);
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == NULL);
    EXPECT(cuCtxPopCurrent(&popped) == CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    unsigned int flags = 99;
    int active = 0;
    CHECK(cuDevicePrimaryCtxGetState(dev, &flags, &active));
    EXPECT(active == 1 && flags == 0);
    CHECK(cuCtxCreate(&created, NULL, 0, dev));
    EXPECT(created != primary);
    CUcontext current;
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == created);  // cuCtxCreate pushes
    CHECK(cuCtxPushCurrent(primary));
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == primary);
    char *ptx = read_file(argv[1], NULL);
    CUmodule module, created_module;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&add_one_primary, module, "add_one"));
    CHECK(cuCtxPushCurrent(created));
    CHECK(cuModuleLoadData(&created_module, ptx));
    CHECK(cuModuleGetFunction(&add_one_created, created_module, "add_one"));
    CHECK(cuCtxPopCurrent(&current));
    EXPECT(current == created);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) EXPECT(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    // This thread's stack is untouched by the others.
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == primary);
    CUcontext popped;
    CHECK(cuCtxPopCurrent(&popped));
    EXPECT(popped == primary);
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == created);
    CHECK(cuModuleUnload(created_module));
    CHECK(cuCtxSetCurrent(primary));
    CHECK(cuCtxGetCurrent(&current));
    EXPECT(current == primary);
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(created));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("threads: ok\n");
    return 0;
}
