// What programs ask the runtime about streams, events, devices, kernels and memory: a stream's
// flags, device, id and attributes (access-policy window, synchronization policy, priority,
// copied between streams), cudaEventRecordWithFlags in and out of a capture, choosing and
// initialising devices, peer attributes, a kernel's name, parameters and available dynamic
// shared memory, pinned flags and the hints of managed ranges as cudaMemAdvise and
// cudaMemPrefetchAsync set them, and the thread's capture mode. Hostile arguments get CUDA's
// codes. Prints what it found (the same under NVIDIA's runtime and chevron's on a GPU) and
// "runtime_queries: ok".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <cuda_runtime.h>
#include "quiet_stderr.h"

// cudaFuncSetSharedMemConfig is deprecated (banks are fixed), and still called by programs.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int failures = 0;
#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            printf("FAIL %s: %s (line %d)\n", #x, cudaGetErrorName(e), __LINE__);             \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
#define EXPECT(cond)                                                                          \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            printf("FAIL line %d: %s\n", __LINE__, #cond);                                    \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)
// A call expected to fail with `code`; stderr silenced (chevron explains failures there).
#define EXPECT_CODE(code, x)                                                                  \
    do {                                                                                      \
        int saved_ = silenceStderr();                                                         \
        cudaError_t e = (x);                                                                  \
        restoreStderr(saved_);                                                                \
        cudaGetLastError();                                                                   \
        if (e != (code)) {                                                                    \
            printf("FAIL line %d: %s gave %s, not %s\n", __LINE__, #x, cudaGetErrorName(e),   \
                   cudaGetErrorName(code));                                                   \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

__global__ void params(int a, double b, char c, float4 d, int *e) {
    if (e) *e = a + (int)b + c + (int)d.x;
}
__global__ void add_one(int *data) { data[threadIdx.x] += 1; }
__global__ void uses_shared(int *out) {
    extern __shared__ int dynamic[];
    dynamic[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = dynamic[blockDim.x - 1 - threadIdx.x];
}

static void streams() {
    cudaStream_t blocking, nonblocking, other;
    CHECK(cudaStreamCreate(&blocking));
    CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    CHECK(cudaStreamCreate(&other));
    unsigned flags = 99;
    CHECK(cudaStreamGetFlags(blocking, &flags));
    EXPECT(flags == cudaStreamDefault);
    CHECK(cudaStreamGetFlags(nonblocking, &flags));
    EXPECT(flags == cudaStreamNonBlocking);
    CHECK(cudaStreamGetFlags(0, &flags));
    EXPECT(flags == cudaStreamDefault);
    CHECK(cudaStreamGetFlags(cudaStreamPerThread, &flags));
    printf("stream flags: blocking 0, non-blocking 1, per-thread %u\n", flags);
    int device = -1;
    CHECK(cudaStreamGetDevice(nonblocking, &device));
    EXPECT(device == 0);
    CHECK(cudaStreamGetDevice(cudaStreamLegacy, &device));
    EXPECT(device == 0);

    unsigned long long ids[5];
    CHECK(cudaStreamGetId(blocking, &ids[0]));
    CHECK(cudaStreamGetId(nonblocking, &ids[1]));
    CHECK(cudaStreamGetId(other, &ids[2]));
    CHECK(cudaStreamGetId(cudaStreamLegacy, &ids[3]));
    CHECK(cudaStreamGetId(cudaStreamPerThread, &ids[4]));
    std::set<unsigned long long> distinct(ids, ids + 5);
    EXPECT(distinct.size() == 5);
    unsigned long long again = 0;
    CHECK(cudaStreamGetId(blocking, &again));
    EXPECT(again == ids[0]);
    CHECK(cudaStreamGetId(0, &again));
    EXPECT(again == ids[3]);
    cudaStream_t later;
    CHECK(cudaStreamCreate(&later));
    CHECK(cudaStreamGetId(later, &again));
    EXPECT(distinct.count(again) == 0);
    CHECK(cudaStreamDestroy(later));
    printf("stream ids: 5 distinct and stable\n");

    // Attributes: defaults, then as set, then copied.
    cudaStreamAttrValue value;
    memset(&value, 0x5a, sizeof value);
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributeAccessPolicyWindow, &value));
    EXPECT(value.accessPolicyWindow.base_ptr == nullptr && value.accessPolicyWindow.num_bytes == 0);
    // A policy never set reads as no cudaSynchronizationPolicy (-1 from NVIDIA's runtime on an
    // H200); copying it to another stream leaves that one's unset too.
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributeSynchronizationPolicy, &value));
    printf("default synchronization policy: %d\n", (int)value.syncPolicy);
    CHECK(cudaStreamCopyAttributes(other, blocking));
    memset(&value, 0x5a, sizeof value);
    CHECK(cudaStreamGetAttribute(other, cudaStreamAttributeSynchronizationPolicy, &value));
    printf("copied unset synchronization policy: %d\n", (int)value.syncPolicy);
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributePriority, &value));
    EXPECT(value.priority == 0);

    int max_window = 0;
    CHECK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
    int *window_data;
    CHECK(cudaMalloc(&window_data, 1 << 20));
    memset(&value, 0, sizeof value);
    value.accessPolicyWindow.base_ptr = window_data;
    value.accessPolicyWindow.num_bytes = max_window > 0 && max_window < (1 << 20) ? max_window : 1 << 20;
    value.accessPolicyWindow.hitRatio = 0.6f;
    value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(blocking, cudaStreamAttributeAccessPolicyWindow, &value));
    memset(&value, 0, sizeof value);
    value.syncPolicy = cudaSyncPolicyBlockingSync;
    CHECK(cudaStreamSetAttribute(blocking, cudaStreamAttributeSynchronizationPolicy, &value));
    value.priority = greatest;
    CHECK(cudaStreamSetAttribute(blocking, cudaStreamAttributePriority, &value));
    add_one<<<1, 32, 0, blocking>>>(window_data);
    CHECK(cudaStreamSynchronize(blocking));

    cudaStreamAttrValue read;
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributeAccessPolicyWindow, &read));
    EXPECT(read.accessPolicyWindow.base_ptr == window_data);
    EXPECT(read.accessPolicyWindow.hitRatio == 0.6f);
    EXPECT(read.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
    EXPECT(read.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributeSynchronizationPolicy, &read));
    EXPECT(read.syncPolicy == cudaSyncPolicyBlockingSync);
    CHECK(cudaStreamGetAttribute(blocking, cudaStreamAttributePriority, &read));
    EXPECT(read.priority == greatest);
    int priority = 1;
    CHECK(cudaStreamGetPriority(blocking, &priority));
    EXPECT(priority == greatest);

    CHECK(cudaStreamCopyAttributes(other, blocking));
    CHECK(cudaStreamGetAttribute(other, cudaStreamAttributeAccessPolicyWindow, &read));
    EXPECT(read.accessPolicyWindow.base_ptr == window_data && read.accessPolicyWindow.hitRatio == 0.6f);
    CHECK(cudaStreamGetAttribute(other, cudaStreamAttributeSynchronizationPolicy, &read));
    EXPECT(read.syncPolicy == cudaSyncPolicyBlockingSync);
    printf("stream attributes: set, read back and copied\n");

    // The legacy stream keeps attributes too.
    value.syncPolicy = cudaSyncPolicySpin;
    CHECK(cudaStreamSetAttribute(0, cudaStreamAttributeSynchronizationPolicy, &value));
    CHECK(cudaStreamGetAttribute(0, cudaStreamAttributeSynchronizationPolicy, &read));
    EXPECT(read.syncPolicy == cudaSyncPolicySpin);
    value.syncPolicy = cudaSyncPolicyAuto;
    CHECK(cudaStreamSetAttribute(0, cudaStreamAttributeSynchronizationPolicy, &value));

    // Hostile arguments (NULL out-pointers are left to tests/cudart/hostile_cudart.cu: NVIDIA's
    // runtime crashes on some, so this program, which runs under it too, passes none).
    memset(&value, 0, sizeof value);
    value.accessPolicyWindow.hitRatio = 1.5f;
    EXPECT_CODE(cudaErrorInvalidValue,
                cudaStreamSetAttribute(other, cudaStreamAttributeAccessPolicyWindow, &value));
    value.syncPolicy = (cudaSynchronizationPolicy)9;
    EXPECT_CODE(cudaErrorInvalidValue,
                cudaStreamSetAttribute(other, cudaStreamAttributeSynchronizationPolicy, &value));

    CHECK(cudaFree(window_data));
    CHECK(cudaStreamDestroy(blocking));
    CHECK(cudaStreamDestroy(nonblocking));
    CHECK(cudaStreamDestroy(other));
    printf("stream hostile arguments: CUDA's codes\n");
}

static void events() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaEvent_t event, external;
    CHECK(cudaEventCreate(&event));
    CHECK(cudaEventCreateWithFlags(&external, cudaEventDisableTiming));
    int *data;
    CHECK(cudaMalloc(&data, 32 * sizeof(int)));
    CHECK(cudaMemset(data, 0, 32 * sizeof(int)));
    add_one<<<1, 32, 0, stream>>>(data);
    CHECK(cudaEventRecordWithFlags(event, stream, cudaEventRecordDefault));
    CHECK(cudaEventSynchronize(event));
    CHECK(cudaEventQuery(event));
    EXPECT_CODE(cudaErrorInvalidValue, cudaEventRecordWithFlags(event, stream, 0x10));

    // In a capture, an external record is an event record node.
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    add_one<<<1, 32, 0, stream>>>(data);
    CHECK(cudaEventRecordWithFlags(external, stream, cudaEventRecordExternal));
    add_one<<<1, 32, 0, stream>>>(data);
    CHECK(cudaStreamEndCapture(stream, &graph));
    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    EXPECT(count == 3);
    cudaGraphNode_t nodes[3];
    CHECK(cudaGraphGetNodes(graph, nodes, &count));
    int records = 0;
    for (size_t i = 0; i < count; i++) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(nodes[i], &type));
        records += type == cudaGraphNodeTypeEventRecord;
    }
    EXPECT(records == 1);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamWaitEvent(0, external, 0));
    CHECK(cudaStreamSynchronize(stream));
    int host[32];
    CHECK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
    EXPECT(host[0] == 3 && host[31] == 3);
    printf("event record: external in a capture is %d event record node of %zu\n", records, count);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(data));
    CHECK(cudaEventDestroy(event));
    CHECK(cudaEventDestroy(external));
    CHECK(cudaStreamDestroy(stream));

    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == cudaStreamCaptureModeGlobal);
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == cudaStreamCaptureModeRelaxed);
    // A value that is no cudaStreamCaptureMode is exchanged unchecked (NVIDIA's runtime on an
    // H200 accepts it); the thread's mode is set back to global at once.
    mode = (cudaStreamCaptureMode)7;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    mode = cudaStreamCaptureModeGlobal;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("capture mode: exchanged\n");
}

static void devices() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaDeviceProp wanted;
    memset(&wanted, 0, sizeof wanted);
    wanted.major = prop.major;
    wanted.minor = prop.minor;
    int chosen = -1;
    CHECK(cudaChooseDevice(&chosen, &wanted));
    EXPECT(chosen >= 0 && chosen < count);
    cudaDeviceProp chosen_prop;
    CHECK(cudaGetDeviceProperties(&chosen_prop, chosen));
    EXPECT(chosen_prop.major * 10 + chosen_prop.minor >= prop.major * 10 + prop.minor);

    CHECK(cudaInitDevice(0, 0, 0));
    CHECK(cudaInitDevice(0, cudaDeviceScheduleAuto, cudaInitDeviceFlagsAreValid));
    EXPECT_CODE(cudaErrorInvalidDevice, cudaInitDevice(count, 0, 0));
    EXPECT_CODE(cudaErrorInvalidDevice, cudaInitDevice(-1, 0, 0));

    int valid[1] = {0};
    CHECK(cudaSetValidDevices(valid, 1));
    CHECK(cudaSetValidDevices(nullptr, 0));
    int bad[1] = {count};
    EXPECT_CODE(cudaErrorInvalidDevice, cudaSetValidDevices(bad, 1));

    EXPECT_CODE(cudaErrorInvalidDevice,
                cudaDeviceGetP2PAttribute(&chosen, cudaDevP2PAttrAccessSupported, 0, 0));
    EXPECT_CODE(cudaErrorInvalidDevice,
                cudaDeviceGetP2PAttribute(&chosen, cudaDevP2PAttrAccessSupported, 0, count));
    if (count > 1) {
        int access = -1, can = -1;
        CHECK(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, 0, 1));
        CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
        EXPECT(access == can);
    }

    size_t width = 0;
    cudaChannelFormatDesc float4_desc = cudaCreateChannelDesc<float4>();
    CHECK(cudaDeviceGetTexture1DLinearMaxWidth(&width, &float4_desc, 0));
    int attribute = 0;
    CHECK(cudaDeviceGetAttribute(&attribute, cudaDevAttrMaxTexture1DLinearWidth, 0));
    EXPECT(width > 0);
    printf("1D linear texture: %zu float4 elements, attribute %d\n", width, attribute);
    EXPECT_CODE(cudaErrorInvalidDevice,
                cudaDeviceGetTexture1DLinearMaxWidth(&width, &float4_desc, count));

    // cudaSetValidDevices left this thread, which never chose a device, without a context
    // (the list is tried afresh): the context call finds none, as NVIDIA's runtime answers on
    // an H200. cudaSetDevice binds the device's context again.
    EXPECT_CODE(cudaErrorDeviceUninitialized, cudaCtxResetPersistingL2Cache());
    CHECK(cudaSetDevice(0));
    CHECK(cudaCtxResetPersistingL2Cache());
    printf("devices: chosen, initialised, valid list, peer attributes, persisting L2 reset\n");
}

static void kernels() {
    const char *name = nullptr;
    CHECK(cudaFuncGetName(&name, (const void *)params));
    printf("kernel name: %s\n", name);
    EXPECT(name && strstr(name, "params") != nullptr);
    EXPECT_CODE(cudaErrorInvalidResourceHandle, cudaFuncGetName(&name, (const void *)&failures));

    size_t offsets[5], sizes[5];
    for (int i = 0; i < 5; i++) CHECK(cudaFuncGetParamInfo((const void *)params, i, &offsets[i], &sizes[i]));
    printf("params:");
    for (int i = 0; i < 5; i++) printf(" %zu+%zu", offsets[i], sizes[i]);
    printf("\n");
    EXPECT(offsets[0] == 0 && sizes[0] == 4 && offsets[1] == 8 && sizes[1] == 8);
    EXPECT(offsets[2] == 16 && sizes[2] == 1 && offsets[3] == 32 && sizes[3] == 16);
    EXPECT(offsets[4] == 48 && sizes[4] == 8);
    EXPECT_CODE(cudaErrorInvalidValue, cudaFuncGetParamInfo((const void *)params, 5, offsets, sizes));

    CHECK(cudaFuncSetSharedMemConfig((const void *)add_one, cudaSharedMemBankSizeFourByte));
    EXPECT_CODE(cudaErrorInvalidValue,
                cudaFuncSetSharedMemConfig((const void *)add_one, (cudaSharedMemConfig)5));

    // The dynamic shared memory that still fits the asked blocks, checked against occupancy.
    for (int blocks : {1, 2, 4}) {
        size_t bytes = 0;
        CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, (const void *)uses_shared, blocks, 128));
        int resident = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, (const void *)uses_shared, 128, bytes));
        EXPECT(bytes > 0 && resident >= blocks);
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, (const void *)uses_shared, 128, bytes + 1024));
        EXPECT(resident < blocks);
        printf("available dynamic shared memory for %d blocks of 128: %zu bytes\n", blocks, bytes);
    }
    size_t bytes = 0;
    EXPECT_CODE(cudaErrorInvalidResourceHandle,
                cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, (const void *)&failures, 1, 128));

    // The kernel as a cudaFunction_t, which the driver API takes as a CUfunction: its
    // attributes and a launch through cuLaunchKernel (found as CUDA's samples find driver
    // functions).
    cudaFunction_t function = nullptr;
    CHECK(cudaGetFuncBySymbol(&function, (const void *)add_one));
    EXPECT(function != nullptr);
    typedef int (*GetAttribute)(int *, int, cudaFunction_t);
    typedef int (*LaunchKernel)(cudaFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, cudaStream_t, void **, void **);
    void *entry = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuFuncGetAttribute", &entry, 12000, cudaEnableDefault,
                                           &found));
    EXPECT(found == cudaDriverEntryPointSuccess && entry);
    int threads = 0;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    EXPECT(((GetAttribute)entry)(&threads, 0, function) == 0);
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, (const void *)add_one));
    EXPECT(threads == attributes.maxThreadsPerBlock);
    CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault,
                                           &found));
    EXPECT(found == cudaDriverEntryPointSuccess && entry);
    int *counts;
    CHECK(cudaMalloc(&counts, 32 * sizeof(int)));
    CHECK(cudaMemset(counts, 0, 32 * sizeof(int)));
    void *args[] = {&counts};
    EXPECT(((LaunchKernel)entry)(function, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr) == 0);
    int counted[32];
    CHECK(cudaMemcpy(counted, counts, sizeof counted, cudaMemcpyDeviceToHost));
    EXPECT(counted[0] == 1 && counted[31] == 1);
    CHECK(cudaFree(counts));
    printf("kernel by symbol: %d threads a block at most, launched through the driver API\n",
           threads);
    printf("kernels: name, parameters, shared memory\n");
}

static void memory() {
    void *pinned, *mapped;
    CHECK(cudaMallocHost(&pinned, 4096));
    CHECK(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    unsigned flags = 0;
    CHECK(cudaHostGetFlags(&flags, pinned));
    printf("cudaMallocHost flags: %#x\n", flags);
    CHECK(cudaHostGetFlags(&flags, (char *)mapped + 100));
    EXPECT(flags & cudaHostAllocWriteCombined);
    EXPECT(flags & cudaHostAllocMapped);
    printf("cudaHostAlloc(mapped | write-combined) flags: %#x\n", flags);
    int local = 0;
    EXPECT_CODE(cudaErrorInvalidValue, cudaHostGetFlags(&flags, &local));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(mapped));

    const size_t bytes = 1 << 20, half = bytes / 2;
    char *managed;
    CHECK(cudaMallocManaged(&managed, bytes));
    int value = 99;
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributeReadMostly, managed, bytes));
    EXPECT(value == 0);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocation, managed, bytes));
    EXPECT(value == cudaInvalidDeviceId);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributeLastPrefetchLocation, managed, bytes));
    EXPECT(value == cudaInvalidDeviceId);

    cudaMemLocation device0 = {cudaMemLocationTypeDevice, 0};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetReadMostly, device0));
    CHECK(cudaMemAdvise(managed, half, cudaMemAdviseSetPreferredLocation, device0));
    CHECK(cudaMemAdvise(managed + half, half, cudaMemAdviseSetPreferredLocation, host));
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetAccessedBy, device0));
    CHECK(cudaMemPrefetchAsync(managed, bytes, device0, 0, 0));
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributeReadMostly, managed, bytes));
    EXPECT(value == 1);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocation, managed, half));
    EXPECT(value == 0);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocation, managed + half, half));
    EXPECT(value == cudaCpuDeviceId);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocation, managed, bytes));
    EXPECT(value == cudaInvalidDeviceId);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocationType, managed + half, half));
    EXPECT(value == cudaMemLocationTypeHost);
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributeLastPrefetchLocation, managed, bytes));
    EXPECT(value == 0);
    int accessed[3] = {7, 7, 7};
    CHECK(cudaMemRangeGetAttribute(accessed, sizeof accessed, cudaMemRangeAttributeAccessedBy, managed, bytes));
    EXPECT(accessed[0] == 0 && accessed[1] == cudaInvalidDeviceId && accessed[2] == cudaInvalidDeviceId);
    CHECK(cudaMemAdvise(managed, half, cudaMemAdviseUnsetReadMostly, device0));
    CHECK(cudaMemAdvise(managed, bytes, cudaMemAdviseUnsetAccessedBy, device0));

    int read_mostly = -1, preferred = -1, prefetched = -1, by[1] = {-1};
    void *data[4] = {&read_mostly, &preferred, &prefetched, by};
    size_t sizes[4] = {4, 4, 4, 4};
    cudaMemRangeAttribute attributes[4] = {
        cudaMemRangeAttributeReadMostly, cudaMemRangeAttributePreferredLocation,
        cudaMemRangeAttributeLastPrefetchLocation, cudaMemRangeAttributeAccessedBy};
    CHECK(cudaMemRangeGetAttributes(data, sizes, attributes, 4, managed + half, half));
    EXPECT(read_mostly == 1 && preferred == cudaCpuDeviceId && prefetched == 0);
    EXPECT(by[0] == cudaInvalidDeviceId);
    printf("managed range hints: read-mostly %d, preferred %d, last prefetch %d\n", read_mostly,
           preferred, prefetched);

    EXPECT_CODE(cudaErrorInvalidValue,
                cudaMemRangeGetAttribute(&value, 8, cudaMemRangeAttributeReadMostly, managed, bytes));
    EXPECT_CODE(cudaErrorInvalidValue,
                cudaMemRangeGetAttribute(&value, 4, (cudaMemRangeAttribute)42, managed, bytes));
    EXPECT_CODE(cudaErrorInvalidValue,
                cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributeReadMostly, &local, 4));
    CHECK(cudaFree(managed));

    // A new allocation has no hints of a freed one.
    CHECK(cudaMallocManaged(&managed, bytes));
    CHECK(cudaMemRangeGetAttribute(&value, 4, cudaMemRangeAttributePreferredLocation, managed, bytes));
    EXPECT(value == cudaInvalidDeviceId);
    CHECK(cudaFree(managed));
    printf("memory: pinned flags, managed range attributes\n");
}

int main() {
    streams();
    events();
    devices();
    kernels();
    memory();
    if (failures) {
        printf("runtime_queries: %d failures\n", failures);
        return 1;
    }
    printf("runtime_queries: ok\n");
    return 0;
}
