// More of the runtime a typical program calls, through a statically linked runtime: device
// attributes and properties, function attributes and occupancy, stream priorities, mapped
// (zero-copy) pinned memory, managed memory with advice and prefetching, pointer attributes,
// stream callbacks and host functions, event timing and queries, a kernel printf, and an
// error that is not sticky. Prints what does not depend on the device's size and
// "runtime_misc: ok".
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void hello(int tag) {
    if (threadIdx.x == 0) printf("hello from block %d, tag %d\n", blockIdx.x, tag);
}

static int callbacks = 0;
static void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void *data) {
    if (status == cudaSuccess) callbacks += *static_cast<int *>(data);
}
static void CUDART_CB on_host(void *data) { callbacks += *static_cast<int *>(data); }

int main() {
    bool ok = true;
    int device = 0, count = 0;
    CHECK(cudaGetDeviceCount(&count));
    CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, device));
    int warp = 0, mapped = 0, managed = 0;
    CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device));
    CHECK(cudaDeviceGetAttribute(&mapped, cudaDevAttrCanMapHostMemory, device));
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, device));
    ok = ok && count >= 1 && warp == 32 && prop.warpSize == 32 && mapped == 1 && managed == 1;
    printf("device: warp %d, maps host memory %d, managed memory %d\n", warp, mapped, managed);

    cudaFuncAttributes attrs;
    CHECK(cudaFuncGetAttributes(&attrs, scale));
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0));
    ok = ok && attrs.maxThreadsPerBlock >= 256 && blocks >= 1;
    printf("scale: up to %s threads per block, at least one block per SM: %s\n",
           attrs.maxThreadsPerBlock >= 1024 ? "1024" : "256", blocks >= 1 ? "yes" : "no");

    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t high;
    CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
    int priority = 1;
    CHECK(cudaStreamGetPriority(high, &priority));
    ok = ok && priority == greatest && greatest <= least;

    // Mapped pinned memory: the kernel works on the host's bytes.
    const int n = 4096;
    float *host = nullptr, *host_dev = nullptr;
    CHECK(cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&host_dev, host, 0));
    for (int i = 0; i < n; i++) host[i] = float(i);
    scale<<<n / 256, 256, 0, high>>>(host_dev, 2.0f, n);
    CHECK(cudaStreamSynchronize(high));
    bool mapped_ok = true;
    for (int i = 0; i < n; i++) mapped_ok = mapped_ok && host[i] == 2.0f * i;
    ok = ok && mapped_ok;
    printf("mapped pinned memory: %s\n", mapped_ok ? "written by the kernel" : "WRONG");

    // Managed memory with advice and prefetches.
    float *m = nullptr;
    CHECK(cudaMallocManaged(&m, n * sizeof(float)));
    for (int i = 0; i < n; i++) m[i] = 1.0f;
    cudaMemLocation here = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemAdvise(m, n * sizeof(float), cudaMemAdviseSetPreferredLocation, here));
    CHECK(cudaMemPrefetchAsync(m, n * sizeof(float), here, 0, high));
    scale<<<n / 256, 256, 0, high>>>(m, 3.0f, n);
    cudaMemLocation host_loc = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(m, n * sizeof(float), host_loc, 0, high));
    CHECK(cudaStreamSynchronize(high));
    float managed_sum = 0;
    for (int i = 0; i < n; i++) managed_sum += m[i];
    ok = ok && managed_sum == 3.0f * n;
    printf("managed: sum %.0f\n", managed_sum);

    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, m));
    bool managed_ptr = pa.type == cudaMemoryTypeManaged;
    CHECK(cudaPointerGetAttributes(&pa, host));
    bool host_ptr = pa.type == cudaMemoryTypeHost;
    ok = ok && managed_ptr && host_ptr;
    printf("pointer attributes: managed %d, host %d\n", managed_ptr, host_ptr);

    // Callbacks and host functions run in stream order.
    int one = 1, ten = 10;
    CHECK(cudaStreamAddCallback(high, on_stream, &one, 0));
    CHECK(cudaLaunchHostFunc(high, on_host, &ten));
    CHECK(cudaStreamSynchronize(high));
    ok = ok && callbacks == 11;
    printf("callbacks: %d\n", callbacks);

    // Events: timing and queries.
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, high));
    scale<<<n / 256, 256, 0, high>>>(m, 1.0f, n);
    CHECK(cudaEventRecord(stop, high));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    ok = ok && ms >= 0 && cudaEventQuery(stop) == cudaSuccess;
    printf("events: elapsed time measured %s\n", ms >= 0 ? "yes" : "no");

    // An error that is not sticky: a bad configuration, then work goes on.
    scale<<<1, 4096>>>(m, 1.0f, n);
    cudaError_t bad = cudaGetLastError();
    ok = ok && bad == cudaErrorInvalidValue && cudaGetLastError() == cudaSuccess;
    printf("bad launch: %s, then %s\n", cudaGetErrorName(bad), cudaGetErrorName(cudaPeekAtLastError()));

    hello<<<1, 32>>>(7);
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(m));
    CHECK(cudaFreeHost(host));
    CHECK(cudaStreamDestroy(high));
    printf(ok ? "runtime_misc: ok\n" : "runtime_misc: FAILED\n");
    return ok ? 0 : 1;
}
