// A program built with -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1: every stream-ordered driver
// call below links its per-thread form (cuMemsetD32Async -> cuMemsetD32Async_ptsz,
// cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds, ...), in which the NULL stream is the calling thread's
// default stream. Two host threads each fill, copy, launch, record events, wait, launch a
// graph and allocate stream-ordered on their own default stream at the same time, and check
// their own results. The streams are independent: thread 0 blocks its default stream in a
// host function until thread 1 has synchronised its own (a shared stream would time out).
// A per-thread stream is ordered with the legacy stream (CU_STREAM_LEGACY) both ways, as
// CUDA's per-thread default stream "will synchronize with the legacy default stream": a host
// function on one that sleeps is seen done by a host function queued after it on the other.
// Also: cuGetProcAddress with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM finds the forms.
// Usage: per_thread_stream KERNELS.ptx
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "build with -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"
#endif

enum { THREADS = 2, N = 4096, WIDTH = 64, HEIGHT = 16 };

static CUcontext context;
static CUfunction add_one;
static pthread_barrier_t start;

// Thread 1 has synchronised its default stream (set by thread 1, waited for by thread 0's
// host function).
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int other_done, other_seen;

// Runs on thread 0's default stream: waits up to 20 s for thread 1's synchronisation.
static void wait_for_other(void *data) {
    (void)data;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&lock);
    while (!other_done)
        if (pthread_cond_timedwait(&changed, &lock, &until) != 0) break;
    other_seen = other_done;
    pthread_mutex_unlock(&lock);
}

static void mark(void *data) { *(int *)data += 1; }

// Ordering with the legacy stream: `slow_mark` sleeps, then marks; `look` copies the mark.
static int marked, looked;
static void slow_mark(void *data) {
    (void)data;
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    marked = 1;
}
static void look(void *data) {
    (void)data;
    looked = marked;
}

// Work on `first` then on `second`: the second host function must see the first one's mark.
static void ordered(CUstream first, CUstream second, const char *what) {
    marked = looked = 0;
    CHECK(cuLaunchHostFunc(first, slow_mark, NULL));
    CHECK(cuLaunchHostFunc(second, look, NULL));
    CHECK(cuStreamSynchronize(second));
    CHECK(cuStreamSynchronize(first));
    if (!looked) {
        fprintf(stderr, "FAIL: %s: the later host function ran before the earlier one\n", what);
        exit(1);
    }
}

static void check_ints(const int *values, int n, int expected, int index, const char *what) {
    for (int i = 0; i < n; i++)
        if (values[i] != expected) {
            fprintf(stderr, "FAIL thread %d: %s[%d] = %d, expected %d\n", index, what, i,
                    values[i], expected);
            exit(1);
        }
}

static void *worker(void *arg) {
    int index = (int)(intptr_t)arg;
    CHECK(cuCtxSetCurrent(context));
    CUdeviceptr buffer, copy;
    CHECK(cuMemAlloc(&buffer, N * sizeof(int)));
    CHECK(cuMemAlloc(&copy, N * sizeof(int)));
    // Page-locked: NVIDIA's driver makes a copy to pageable memory on a per-thread stream wait
    // for the other threads' per-thread streams too (thread 0's held one, on an H200).
    int *host = NULL;
    CHECK(cuMemAllocHost((void **)&host, N * sizeof(int)));
    pthread_barrier_wait(&start);

    if (index == 0) CHECK(cuLaunchHostFunc(NULL, wait_for_other, NULL));

    // Fill, launch three times, copy on the device: all on this thread's default stream.
    int base = 1000 * (index + 1), n = N;
    CHECK(cuMemsetD32Async(buffer, (unsigned)base, N, NULL));
    void *params[] = {&buffer, &n};
    for (int i = 0; i < 3; i++)
        CHECK(cuLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CUevent recorded;
    CHECK(cuEventCreate(&recorded, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventRecord(recorded, NULL));
    CHECK(cuStreamWaitEvent(NULL, recorded, 0));
    CHECK(cuMemcpyDtoDAsync(copy, buffer, N * sizeof(int), NULL));

    // A graph of one kernel node, launched on the default stream after that work.
    CUgraph graph;
    CUgraphNode node;
    CUgraphExec exec;
    CHECK(cuGraphCreate(&graph, 0));
    void *copy_params[] = {&copy, &n};
    CUDA_KERNEL_NODE_PARAMS kernel = {.func = add_one, .gridDimX = N / 256, .gridDimY = 1,
                                      .gridDimZ = 1, .blockDimX = 256, .blockDimY = 1,
                                      .blockDimZ = 1, .kernelParams = copy_params};
    CHECK(cuGraphAddKernelNode(&node, graph, NULL, 0, &kernel));
    CHECK(cuGraphInstantiate(&exec, graph, 0));
    CHECK(cuGraphUpload(exec, NULL));
    CHECK(cuGraphLaunch(exec, NULL));

    // Stream-ordered allocation, the copy back, then the wait (thread 1 queues no host
    // function before it, so that a driver running host functions on one thread passes too).
    CUdeviceptr scratch;
    CHECK(cuMemAllocAsync(&scratch, 1 << 16, NULL));
    CHECK(cuMemsetD8Async(scratch, 7, 1 << 16, NULL));
    CHECK(cuMemFreeAsync(scratch, NULL));
    CHECK(cuMemcpyDtoHAsync(host, copy, N * sizeof(int), NULL));
    if (index == 1) {
        CHECK(cuStreamSynchronize(NULL));
        pthread_mutex_lock(&lock);
        other_done = 1;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    } else {
        CHECK(cuStreamSynchronize(NULL));
        EXPECT(other_seen);  // thread 1 finished while this thread's stream was held
    }
    int marks = 0;
    CHECK(cuLaunchHostFunc(NULL, mark, &marks));
    CHECK(cuStreamSynchronize(NULL));
    EXPECT(marks == 1);
    CHECK(cuStreamQuery(NULL));
    CHECK(cuEventQuery(recorded));
    check_ints(host, N, base + 4, index, "graph result");

    // Synchronous (_ptds) calls, ordered after the default stream's work.
    CHECK(cuMemsetD32Async(buffer, 5, N, NULL));
    CHECK(cuLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CHECK(cuMemcpyDtoH(host, buffer, N * sizeof(int)));
    check_ints(host, N, 6, index, "fill + kernel, synchronous copy");
    for (int i = 0; i < N; i++) host[i] = index * N + i;
    CHECK(cuMemcpyHtoD(buffer, host, N * sizeof(int)));
    CHECK(cuMemcpyDtoD(copy, buffer, N * sizeof(int)));
    int *pinned;
    CHECK(cuMemAllocHost((void **)&pinned, N * sizeof(int)));
    CHECK(cuMemcpy((CUdeviceptr)pinned, copy, N * sizeof(int)));  // unified addressing
    for (int i = 0; i < N; i++) EXPECT(pinned[i] == index * N + i);
    CHECK(cuMemFreeHost(pinned));
    CHECK(cuMemsetD32(buffer, 9, N));
    CHECK(cuMemsetD16(buffer, (unsigned short)(index + 1), 2));  // the first int's halves
    CHECK(cuMemsetD8(buffer + 4, 0, 4));
    CHECK(cuMemcpyDtoH(host, buffer, 3 * sizeof(int)));
    EXPECT(host[0] == (index + 1) * 0x10001 && host[1] == 0 && host[2] == 9);

    // Pitched fills and copies (2D and 3D): HEIGHT rows of WIDTH bytes, WIDTH * 2 apart.
    CHECK(cuMemsetD8(buffer, 0xEE, WIDTH * 2 * HEIGHT));
    CHECK(cuMemsetD2D8(buffer, WIDTH * 2, (unsigned char)(index + 1), WIDTH, HEIGHT));
    CHECK(cuMemsetD2D8Async(buffer, WIDTH * 2, (unsigned char)(index + 1), WIDTH, HEIGHT, NULL));
    CHECK(cuMemsetD2D16(copy, WIDTH * 2, 0x0102, WIDTH / 2, HEIGHT));
    CHECK(cuMemsetD2D32(copy + WIDTH, WIDTH * 2, 0x03040506, WIDTH / 4, HEIGHT));
    unsigned char rows[HEIGHT][WIDTH * 2];
    CUDA_MEMCPY2D to_host = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = buffer,
                             .srcPitch = WIDTH * 2, .dstMemoryType = CU_MEMORYTYPE_HOST,
                             .dstHost = rows, .dstPitch = WIDTH * 2, .WidthInBytes = WIDTH * 2,
                             .Height = HEIGHT};
    CHECK(cuMemcpy2D(&to_host));
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH * 2; x++)
            EXPECT(rows[y][x] == (x < WIDTH ? index + 1 : 0xEE));
    to_host.srcDevice = copy;
    CHECK(cuMemcpy2DUnaligned(&to_host));
    for (int y = 0; y < HEIGHT; y++) {
        unsigned short half;
        unsigned word;
        memcpy(&half, &rows[y][2], 2);
        memcpy(&word, &rows[y][WIDTH + 4], 4);
        EXPECT(half == 0x0102 && word == 0x03040506);
    }
    memset(rows, 0, sizeof rows);
    CHECK(cuMemcpy2DAsync(&to_host, NULL));
    CUDA_MEMCPY3D box = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = buffer,
                         .srcPitch = WIDTH * 2, .srcHeight = HEIGHT / 2,
                         .dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = copy,
                         .dstPitch = WIDTH * 2, .dstHeight = HEIGHT / 2, .WidthInBytes = WIDTH,
                         .Height = HEIGHT / 2, .Depth = 2};
    CHECK(cuMemcpy3DAsync(&box, NULL));
    CHECK(cuStreamSynchronize(NULL));
    EXPECT(rows[HEIGHT - 1][WIDTH + 4] == 0x06);
    box.dstMemoryType = CU_MEMORYTYPE_HOST;
    box.dstHost = rows;
    box.dstDevice = 0;
    memset(rows, 0, sizeof rows);
    CHECK(cuMemcpy3D(&box));
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH * 2; x++) EXPECT(rows[y][x] == (x < WIDTH ? index + 1 : 0));
    CHECK(cuMemcpyHtoDAsync(buffer, rows, sizeof rows, NULL));
    CHECK(cuMemsetD16Async(copy, 0x0A0B, WIDTH, NULL));
    CHECK(cuMemcpyDtoH(host, copy, 4));
    EXPECT(host[0] == 0x0A0B0A0B);

    // The default stream's queries: not capturing, default priority, this context, device 0.
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    CHECK(cuStreamIsCapturing(NULL, &capturing));
    EXPECT(capturing == CU_STREAM_CAPTURE_STATUS_NONE);
    int priority = -99;
    CHECK(cuStreamGetPriority(NULL, &priority));
    EXPECT(priority == 0);
    CUcontext of = NULL;
    CHECK(cuStreamGetCtx(NULL, &of));
    EXPECT(of == context);
    CUdevice device = -1;
    CHECK(cuStreamGetDevice(NULL, &device));
    EXPECT(device == 0);

    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(graph));
    CHECK(cuEventDestroy(recorded));
    CHECK(cuMemFree(copy));
    CHECK(cuMemFree(buffer));
    CHECK(cuMemFreeHost(host));
    return NULL;
}

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    CUmodule module = open_module(argv[1], &context);
    CHECK(cuModuleGetFunction(&add_one, module, "add_one"));

    // The per-thread forms through cuGetProcAddress, called on this thread's default stream.
    CUresult (*synchronize)(CUstream) = NULL;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CHECK(cuGetProcAddress("cuStreamSynchronize", (void **)&synchronize, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found));
    EXPECT(found == CU_GET_PROC_ADDRESS_SUCCESS && synchronize);
    CUresult (*fill)(CUdeviceptr, size_t, unsigned char, size_t, size_t) = NULL;
    CHECK(cuGetProcAddress("cuMemsetD2D8", (void **)&fill, 13000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &found));
    EXPECT(found == CU_GET_PROC_ADDRESS_SUCCESS && fill);
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 256));
    CHECK(fill(p, 16, 3, 16, 16));
    CHECK(synchronize(NULL));
    unsigned char bytes[256];
    CHECK(cuMemcpyDtoH(bytes, p, sizeof bytes));
    for (int i = 0; i < 256; i++) EXPECT(bytes[i] == 3);
    CHECK(cuMemFree(p));

    ordered(CU_STREAM_LEGACY, NULL, "legacy stream, then the per-thread stream");
    ordered(NULL, CU_STREAM_LEGACY, "per-thread stream, then the legacy stream");

    // add_one launched once before the threads start: under lazy module loading a kernel's
    // first launch synchronizes the context, which would wait for thread 0's held stream
    // (NVIDIA's driver on an H200).
    CUdeviceptr warm;
    int warm_n = 256;
    CHECK(cuMemAlloc(&warm, warm_n * sizeof(int)));
    void *warm_params[] = {&warm, &warm_n};
    CHECK(cuLaunchKernel(add_one, 1, 1, 1, 256, 1, 1, 0, NULL, warm_params, NULL));
    CHECK(cuStreamSynchronize(NULL));
    CHECK(cuMemFree(warm));

    // The threads' stream-ordered allocations must not tie their streams together: a pool
    // may make an allocation wait for another stream's pending free (NVIDIA's default pool
    // does, and thread 1's allocation then waited for thread 0's held stream on an H200).
    CUmemoryPool pool;
    CHECK(cuDeviceGetDefaultMemPool(&pool, 0));
    int no = 0;
    CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &no));

    EXPECT(pthread_barrier_init(&start, NULL, THREADS) == 0);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        EXPECT(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++) EXPECT(pthread_join(threads[i], NULL) == 0);
    pthread_barrier_destroy(&start);
    CHECK(cuCtxSynchronize());
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(context));
    printf("per_thread_stream: ok\n");
    return 0;
}
