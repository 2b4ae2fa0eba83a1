// Graph node parameters beyond the basic ones, written as a CUDA sample is: copy nodes to and
// from a __device__ variable (added, changed, changed in an instantiation), event record and
// wait nodes' events read and changed (in the graph and in an instantiation), and kernel
// nodes' launch attributes set, read back and copied; user objects held by graphs; stream
// capture into an existing graph, its dependencies updated during the capture; graph memory
// nodes, made by hand and by capturing cudaMallocAsync/cudaFreeAsync, and the device's
// graph memory; a child graph node's graph changed through its handle and replaced in an
// instantiation; the generic node API (cudaGraphAddNode and its SetParams). Every result is
// checked against the host, and misuse against CUDA's documented codes.
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define EXPECT(cond)                                                         \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)
// A call that must fail with `code`; the error is cleared.
#define REFUSED(call, code)                                                          \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != (code)) {                                                        \
            printf("%s:%d: %s: %s, expected %s\n", __FILE__, __LINE__, #call,        \
                   cudaGetErrorName(err_), cudaGetErrorName(code));                  \
            exit(1);                                                                 \
        }                                                                            \
        cudaGetLastError();                                                          \
    } while (0)

const int N = 64;
__device__ int table[N];

__global__ void bump(int amount) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) table[i] += amount;
}

static cudaKernelNodeParams bumpParams(void **args) {
    cudaKernelNodeParams p = {};
    p.func = (void *)bump;
    p.gridDim = dim3(1);
    p.blockDim = dim3(N);
    p.kernelParams = args;
    return p;
}

__global__ void iota(int *out, int start) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) out[i] = start + i;
}

// A graph: host -> table, table += 1, table -> host.
static void symbolNodes() {
    int *in, *out, *other;
    CHECK(cudaMallocHost(&in, N * sizeof(int)));
    CHECK(cudaMallocHost(&out, N * sizeof(int)));
    CHECK(cudaMallocHost(&other, N * sizeof(int)));
    for (int i = 0; i < N; i++) in[i] = 3 * i;
    memset(out, 0, N * sizeof(int));
    memset(other, 0, N * sizeof(int));

    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t to, kernel, from;
    CHECK(cudaGraphAddMemcpyNodeToSymbol(&to, graph, nullptr, 0, table, in, N * sizeof(int), 0,
                                         cudaMemcpyHostToDevice));
    int amount = 1;
    void *args[] = {&amount};
    cudaKernelNodeParams kp = bumpParams(args);
    CHECK(cudaGraphAddKernelNode(&kernel, graph, &to, 1, &kp));
    CHECK(cudaGraphAddMemcpyNodeFromSymbol(&from, graph, &kernel, 1, out, table, N * sizeof(int),
                                           0, cudaMemcpyDefault));

    // The node is a copy from the variable's address.
    void *address;
    CHECK(cudaGetSymbolAddress(&address, table));
    cudaMemcpy3DParms p = {};
    CHECK(cudaGraphMemcpyNodeGetParams(from, &p));
    EXPECT(p.srcPtr.ptr == address && p.dstPtr.ptr == out);
    EXPECT(p.extent.width == N * sizeof(int) && p.extent.height == 1 && p.extent.depth == 1);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < N; i++) EXPECT(out[i] == 3 * i + 1);

    // The first node writes only the upper half now, from `other`; the second reads all.
    for (int i = 0; i < N; i++) other[i] = -i;
    const int half = N / 2;
    CHECK(cudaGraphMemcpyNodeSetParamsToSymbol(to, table, other, half * sizeof(int),
                                               half * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaGraphMemcpyNodeGetParams(to, &p));
    EXPECT(p.dstPtr.ptr == (char *)address + half * sizeof(int) && p.srcPtr.ptr == other);
    cudaGraphExec_t exec2;
    CHECK(cudaGraphInstantiate(&exec2, graph, 0));
    CHECK(cudaGraphLaunch(exec2, 0));
    CHECK(cudaStreamSynchronize(0));
    // Lower half: 3i + 1 from the first launch, bumped again; upper half: other's -(i - half), bumped.
    for (int i = 0; i < N; i++) EXPECT(out[i] == (i < half ? 3 * i + 2 : half - i + 1));

    // An instantiation's copy from the variable may move to other page-locked memory of the
    // same context (NVIDIA's runtime on an H200), then within `out`: the lower half of the
    // variable lands in the upper half of `out`.
    int *elsewhere;
    CHECK(cudaMallocHost(&elsewhere, N * sizeof(int)));
    CHECK(cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec2, from, elsewhere, table,
                                                     N * sizeof(int), 0, cudaMemcpyDefault));
    CHECK(cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec2, from, out + half, table,
                                                     half * sizeof(int), 0, cudaMemcpyDefault));
    CHECK(cudaGraphLaunch(exec2, 0));
    CHECK(cudaStreamSynchronize(0));
    // Lower half: as before (3i + 2); upper half: the variable's lower half, bumped once more.
    for (int i = 0; i < N; i++) EXPECT(out[i] == (i < half ? 3 * i + 2 : 3 * (i - half) + 3));
    CHECK(cudaGraphMemcpyNodeGetParams(from, &p));
    EXPECT(p.dstPtr.ptr == out && p.extent.width == N * sizeof(int));
    CHECK(cudaFreeHost(elsewhere));
    printf("instantiated copy from a symbol: moved to other page-locked memory and back\n");

    // Misuse: a direction toward the host for a copy to the variable, a range past its end,
    // a kernel node given a copy.
    cudaGraphNode_t refused = nullptr;
    REFUSED(cudaGraphAddMemcpyNodeToSymbol(&refused, graph, nullptr, 0, table, in, sizeof(int), 0,
                                           cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);
    REFUSED(cudaGraphAddMemcpyNodeFromSymbol(&refused, graph, nullptr, 0, out, table, sizeof(int),
                                             0, cudaMemcpyHostToDevice),
            cudaErrorInvalidMemcpyDirection);
    REFUSED(cudaGraphAddMemcpyNodeToSymbol(&refused, graph, nullptr, 0, table, in, N * sizeof(int),
                                           sizeof(int), cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
    REFUSED(cudaGraphMemcpyNodeSetParamsToSymbol(kernel, table, in, sizeof(int), 0,
                                                 cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);

    CHECK(cudaGraphExecDestroy(exec2));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFreeHost(other));
    CHECK(cudaFreeHost(out));
    CHECK(cudaFreeHost(in));
}

// Event nodes: which event each records or waits for, in the graph and in an instantiation.
static void eventNodes() {
    cudaEvent_t first, second, third, start;
    CHECK(cudaEventCreate(&first));
    CHECK(cudaEventCreate(&second));
    CHECK(cudaEventCreate(&third));
    CHECK(cudaEventCreate(&start));
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t record, wait;
    CHECK(cudaGraphAddEventRecordNode(&record, graph, nullptr, 0, first));
    CHECK(cudaGraphAddEventWaitNode(&wait, graph, &record, 1, first));

    cudaEvent_t seen = nullptr;
    CHECK(cudaGraphEventRecordNodeGetEvent(record, &seen));
    EXPECT(seen == first);
    CHECK(cudaGraphEventWaitNodeGetEvent(wait, &seen));
    EXPECT(seen == first);
    CHECK(cudaGraphEventRecordNodeSetEvent(record, second));
    CHECK(cudaGraphEventWaitNodeSetEvent(wait, second));
    CHECK(cudaGraphEventRecordNodeGetEvent(record, &seen));
    EXPECT(seen == second);
    CHECK(cudaGraphEventWaitNodeGetEvent(wait, &seen));
    EXPECT(seen == second);

    // Misuse: the other kind of node, a destroyed event (NULL arguments are left to
    // hostile_cudart.cu: NVIDIA's runtime, which runs this program too, crashes on some).
    REFUSED(cudaGraphEventWaitNodeGetEvent(record, &seen), cudaErrorInvalidValue);
    REFUSED(cudaGraphEventRecordNodeSetEvent(wait, first), cudaErrorInvalidValue);

    // The instantiation records `third` instead; the graph still names `second`.
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphExecEventRecordNodeSetEvent(exec, record, third));
    CHECK(cudaGraphExecEventWaitNodeSetEvent(exec, wait, third));
    REFUSED(cudaGraphExecEventRecordNodeSetEvent(exec, wait, third), cudaErrorInvalidValue);
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, third));
    EXPECT(ms >= 0);
    CHECK(cudaGraphEventRecordNodeGetEvent(record, &seen));
    EXPECT(seen == second);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    for (cudaEvent_t e : {first, second, third, start}) CHECK(cudaEventDestroy(e));
}

// Kernel nodes' launch attributes: set, read back, copied to another node, kept across new
// parameters, and the graph still runs.
static void kernelAttributes() {
    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    int amount = 5;
    void *args[] = {&amount};
    cudaKernelNodeParams kp = bumpParams(args);
    cudaGraphNode_t a, b, empty;
    CHECK(cudaGraphAddKernelNode(&a, graph, nullptr, 0, &kp));
    CHECK(cudaGraphAddKernelNode(&b, graph, &a, 1, &kp));
    CHECK(cudaGraphAddEmptyNode(&empty, graph, &b, 1));

    void *window;
    CHECK(cudaGetSymbolAddress(&window, table));
    cudaKernelNodeAttrValue value = {};
    value.accessPolicyWindow.base_ptr = window;
    value.accessPolicyWindow.num_bytes = N * sizeof(int);
    value.accessPolicyWindow.hitRatio = 0.5f;
    value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaGraphKernelNodeSetAttribute(a, cudaKernelNodeAttributeAccessPolicyWindow, &value));
    memset(&value, 0, sizeof value);
    value.priority = greatest;
    CHECK(cudaGraphKernelNodeSetAttribute(a, cudaKernelNodeAttributePriority, &value));

    cudaKernelNodeAttrValue read = {};
    CHECK(cudaGraphKernelNodeGetAttribute(a, cudaKernelNodeAttributePriority, &read));
    EXPECT(read.priority == greatest);
    CHECK(cudaGraphKernelNodeGetAttribute(a, cudaKernelNodeAttributeAccessPolicyWindow, &read));
    EXPECT(read.accessPolicyWindow.base_ptr == window);
    EXPECT(read.accessPolicyWindow.num_bytes == N * sizeof(int));
    EXPECT(read.accessPolicyWindow.hitRatio == 0.5f);
    EXPECT(read.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
    EXPECT(read.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);

    // New parameters keep the attributes; a copy gives them to the other node.
    amount = 2;
    CHECK(cudaGraphKernelNodeSetParams(a, &kp));
    CHECK(cudaGraphKernelNodeCopyAttributes(b, a));
    memset(&read, 0, sizeof read);
    CHECK(cudaGraphKernelNodeGetAttribute(b, cudaKernelNodeAttributePriority, &read));
    EXPECT(read.priority == greatest);
    CHECK(cudaGraphKernelNodeGetAttribute(b, cudaKernelNodeAttributeAccessPolicyWindow, &read));
    EXPECT(read.accessPolicyWindow.base_ptr == window && read.accessPolicyWindow.hitRatio == 0.5f);

    // Misuse: a node that is not a kernel node, an attribute of streams only.
    REFUSED(cudaGraphKernelNodeGetAttribute(empty, cudaKernelNodeAttributePriority, &read),
            cudaErrorInvalidValue);
    REFUSED(cudaGraphKernelNodeCopyAttributes(empty, a), cudaErrorInvalidValue);
    REFUSED(cudaGraphKernelNodeGetAttribute(a, (cudaKernelNodeAttrID)1000, &read),
            cudaErrorInvalidValue);

    int start[N];
    for (int i = 0; i < N; i++) start[i] = i;
    CHECK(cudaMemcpyToSymbol(table, start, sizeof start));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    int end[N];
    CHECK(cudaMemcpyFromSymbol(end, table, sizeof end));
    // Node a bumps by 2 (its new parameters), node b by 5 (its own).
    for (int i = 0; i < N; i++) EXPECT(end[i] == i + 7);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
}

// User objects: references held by the program, a graph and its instantiation; the destructor
// runs once, after the last reference is gone (CUDA runs it asynchronously: the program waits).
static std::atomic<int> destroyed{0};
static void CUDART_CB onDestroy(void *weight) { destroyed += *(int *)weight; }

static bool destroyedBecomes(int expected) {
    for (int waited = 0; destroyed != expected && waited < 2000; waited++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return destroyed == expected;
}

static void userObjects() {
    static int weight = 10;
    cudaUserObject_t object;
    CHECK(cudaUserObjectCreate(&object, &weight, onDestroy, 2, cudaUserObjectNoDestructorSync));
    CHECK(cudaUserObjectRetain(object, 3));
    CHECK(cudaUserObjectRelease(object, 4));  // one left, the program's

    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t empty;
    CHECK(cudaGraphAddEmptyNode(&empty, graph, nullptr, 0));
    // The graph takes two references of its own, then the program's moves to it.
    CHECK(cudaGraphRetainUserObject(graph, object, 2, 0));
    CHECK(cudaGraphReleaseUserObject(graph, object, 1));
    CHECK(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(destroyed == 0);  // the instantiation holds it
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaDeviceSynchronize());
    EXPECT(destroyedBecomes(10));

    // Misuse: a flag missing, no references, a graph that is gone.
    cudaUserObject_t other;
    REFUSED(cudaUserObjectCreate(&other, &weight, onDestroy, 1, 0), cudaErrorInvalidValue);
    REFUSED(cudaUserObjectCreate(&other, &weight, onDestroy, 0, cudaUserObjectNoDestructorSync),
            cudaErrorInvalidValue);
    CHECK(cudaUserObjectCreate(&other, &weight, onDestroy, 1, cudaUserObjectNoDestructorSync));
    REFUSED(cudaUserObjectRetain(other, 0), cudaErrorInvalidValue);
    REFUSED(cudaUserObjectRelease(other, 0), cudaErrorInvalidValue);
    CHECK(cudaGraphCreate(&graph, 0));
    REFUSED(cudaGraphRetainUserObject(graph, other, 1, 2), cudaErrorInvalidValue);
    CHECK(cudaGraphRetainUserObject(graph, other, 1, cudaGraphUserObjectMove));
    CHECK(cudaGraphDestroy(graph));
    EXPECT(destroyedBecomes(20));
}

// Capture into an existing graph, the captured work's dependencies changed on the way:
// root -> k1 (+1) -> x (+10); k1 -> y (+100); {y, x} -> z (+1000).
static size_t dependencies(cudaGraphNode_t node) {
    size_t count = 0;
    CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count));
    return count;
}

static void captureIntoGraph() {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t root, k1;
    CHECK(cudaGraphAddEmptyNode(&root, graph, nullptr, 0));
    int one = 1;
    void *args[] = {&one};
    cudaKernelNodeParams kp = bumpParams(args);
    CHECK(cudaGraphAddKernelNode(&k1, graph, &root, 1, &kp));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    REFUSED(cudaStreamUpdateCaptureDependencies(stream, &k1, nullptr, 1, 0),
            cudaErrorIllegalState);
    CHECK(cudaStreamBeginCaptureToGraph(stream, graph, &k1, nullptr, 1,
                                        cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    cudaGraph_t capturing = nullptr;
    const cudaGraphNode_t *last = nullptr;
    size_t count = 0;
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &capturing, &last, nullptr, &count));
    EXPECT(status == cudaStreamCaptureStatusActive && capturing == graph);
    EXPECT(count == 1 && last[0] == k1);

    bump<<<1, N, 0, stream>>>(10);
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &last, nullptr, &count));
    EXPECT(count == 1 && last[0] != k1);
    cudaGraphNode_t x = last[0];
    CHECK(cudaStreamUpdateCaptureDependencies(stream, &k1, nullptr, 1,
                                              cudaStreamSetCaptureDependencies));
    bump<<<1, N, 0, stream>>>(100);
    CHECK(cudaStreamUpdateCaptureDependencies(stream, &x, nullptr, 1,
                                              cudaStreamAddCaptureDependencies));
    CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, nullptr, &last, nullptr, &count));
    EXPECT(count == 2);
    REFUSED(cudaStreamUpdateCaptureDependencies(stream, &x, nullptr, 1, 2), cudaErrorInvalidValue);
    bump<<<1, N, 0, stream>>>(1000);
    cudaGraph_t ended = nullptr;
    CHECK(cudaStreamEndCapture(stream, &ended));
    EXPECT(ended == graph);

    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes == 5);
    cudaGraphNode_t all[5];
    CHECK(cudaGraphGetNodes(graph, all, &nodes));
    // Besides root, k1 and x (in whatever order the runtime lists them): y after k1 alone,
    // z after two nodes.
    EXPECT(dependencies(root) == 0 && dependencies(k1) == 1 && dependencies(x) == 1);
    int ys = 0, zs = 0;
    for (cudaGraphNode_t node : all) {
        if (node == root || node == k1 || node == x) continue;
        size_t n = dependencies(node);
        if (n == 2) zs++;
        if (n == 1) {
            cudaGraphNode_t dep;
            CHECK(cudaGraphNodeGetDependencies(node, &dep, nullptr, &n));
            EXPECT(dep == k1);
            ys++;
        }
    }
    EXPECT(ys == 1 && zs == 1);

    int zeros[N] = {};
    CHECK(cudaMemcpyToSymbol(table, zeros, sizeof zeros));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    int end[N];
    CHECK(cudaMemcpyFromSymbol(end, table, sizeof end));
    for (int i = 0; i < N; i++) EXPECT(end[i] == 1111);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
}

// Graph memory nodes: alloc -> fill -> copy to host -> free, launched twice; the device's graph
// memory attributes and their misuse.
static unsigned long long graphMem(cudaGraphMemAttributeType attribute) {
    unsigned long long bytes = ~0ull;
    CHECK(cudaDeviceGetGraphMemAttribute(0, attribute, &bytes));
    return bytes;
}

static void memoryNodes() {
    CHECK(cudaDeviceGraphMemTrim(0));
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams alloc = {};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.poolProps.location.id = 0;
    alloc.bytesize = N * sizeof(int);
    cudaGraphNode_t allocNode, fill, copy, freeNode;
    CHECK(cudaGraphAddMemAllocNode(&allocNode, graph, nullptr, 0, &alloc));
    int *memory = (int *)alloc.dptr;
    EXPECT(memory != nullptr);
    int start = 40;
    void *args[] = {&memory, &start};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)iota;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(N);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&fill, graph, &allocNode, 1, &kp));
    int *host;
    CHECK(cudaMallocHost(&host, N * sizeof(int)));
    memset(host, 0, N * sizeof(int));
    CHECK(cudaGraphAddMemcpyNode1D(&copy, graph, &fill, 1, host, memory, N * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&freeNode, graph, &copy, 1, memory));

    cudaMemAllocNodeParams read = {};
    CHECK(cudaGraphMemAllocNodeGetParams(allocNode, &read));
    EXPECT(read.dptr == memory && read.bytesize == N * sizeof(int));
    EXPECT(read.poolProps.location.type == cudaMemLocationTypeDevice &&
           read.poolProps.location.id == 0 && read.accessDescCount == 0);
    void *freed = nullptr;
    CHECK(cudaGraphMemFreeNodeGetParams(freeNode, &freed));
    EXPECT(freed == memory);
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(allocNode, &type));
    EXPECT(type == cudaGraphNodeTypeMemAlloc);
    CHECK(cudaGraphNodeGetType(freeNode, &type));
    EXPECT(type == cudaGraphNodeTypeMemFree);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int round = 0; round < 2; round++) {
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        for (int i = 0; i < N; i++) EXPECT(host[i] == 40 + i);
        start = 100;  // the node keeps its own copy of the arguments
    }
    EXPECT(graphMem(cudaGraphMemAttrUsedMemHigh) >= N * sizeof(int));
    EXPECT(graphMem(cudaGraphMemAttrReservedMemHigh) >= N * sizeof(int));

    // Misuse: memory no allocation node of the graph made, no bytes, the
    // parameters of another kind of node, attributes that are not, or cannot be set.
    int *plain;
    CHECK(cudaMalloc(&plain, sizeof(int)));
    cudaGraphNode_t refused;
    REFUSED(cudaGraphAddMemFreeNode(&refused, graph, nullptr, 0, plain), cudaErrorInvalidValue);
    cudaMemAllocNodeParams empty = alloc;
    empty.bytesize = 0;
    REFUSED(cudaGraphAddMemAllocNode(&refused, graph, nullptr, 0, &empty), cudaErrorInvalidValue);
    REFUSED(cudaGraphMemAllocNodeGetParams(fill, &read), cudaErrorInvalidValue);
    REFUSED(cudaGraphMemFreeNodeGetParams(allocNode, &freed), cudaErrorInvalidValue);
    unsigned long long value = 0;
    REFUSED(cudaDeviceGetGraphMemAttribute(0, (cudaGraphMemAttributeType)7, &value),
            cudaErrorInvalidValue);
    REFUSED(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &value),
            cudaErrorInvalidValue);
    value = 1;
    REFUSED(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &value),
            cudaErrorInvalidValue);
    REFUSED(cudaDeviceGetGraphMemAttribute(9999, cudaGraphMemAttrUsedMemCurrent, &value),
            cudaErrorInvalidDevice);
    CHECK(cudaFree(plain));

    // With the graph and its instantiation gone and the memory trimmed, none is left; the
    // highs reset to that.
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(graphMem(cudaGraphMemAttrUsedMemCurrent) == 0);
    EXPECT(graphMem(cudaGraphMemAttrReservedMemCurrent) == 0);
    value = 0;
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &value));
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &value));
    EXPECT(graphMem(cudaGraphMemAttrUsedMemHigh) == 0);
    EXPECT(graphMem(cudaGraphMemAttrReservedMemHigh) == 0);
    CHECK(cudaFreeHost(host));
}

// Stream-ordered allocation in a capture: cudaMallocAsync and cudaFreeAsync become memory nodes.
static void capturedAllocation() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int *host;
    CHECK(cudaMallocHost(&host, N * sizeof(int)));
    memset(host, 0, N * sizeof(int));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    int *memory = nullptr;
    CHECK(cudaMallocAsync(&memory, N * sizeof(int), stream));
    EXPECT(memory != nullptr);
    iota<<<1, N, 0, stream>>>(memory, 7);
    CHECK(cudaMemcpyAsync(host, memory, N * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaFreeAsync(memory, stream));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));

    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    EXPECT(count == 4);
    cudaGraphNode_t nodes[4];
    CHECK(cudaGraphGetNodes(graph, nodes, &count));
    int allocs = 0, frees = 0;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(node, &type));
        if (type == cudaGraphNodeTypeMemAlloc) {
            cudaMemAllocNodeParams params = {};
            CHECK(cudaGraphMemAllocNodeGetParams(node, &params));
            EXPECT(params.dptr == memory && params.bytesize == N * sizeof(int));
            allocs++;
        }
        if (type == cudaGraphNodeTypeMemFree) {
            void *freed = nullptr;
            CHECK(cudaGraphMemFreeNodeGetParams(node, &freed));
            EXPECT(freed == memory);
            frees++;
        }
    }
    EXPECT(allocs == 1 && frees == 1);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 7 + i);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeHost(host));
}

// A child graph node's own graph: changed through the handle cudaGraphChildGraphNodeGetGraph
// gives, and replaced in an instantiation by a graph of the same shape.
static cudaGraph_t chain(int first, int second) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    int amounts[] = {first, second};
    cudaGraphNode_t previous = nullptr;
    for (int amount : amounts) {
        if (amount == 0) continue;
        void *args[] = {&amount};
        cudaKernelNodeParams kp = bumpParams(args);
        cudaGraphNode_t node;
        CHECK(cudaGraphAddKernelNode(&node, graph, previous ? &previous : nullptr,
                                     previous ? 1 : 0, &kp));
        previous = node;
    }
    return graph;
}

static void tableShouldBe(int expected) {
    int end[N];
    CHECK(cudaMemcpyFromSymbol(end, table, sizeof end));
    for (int i = 0; i < N; i++) EXPECT(end[i] == expected);
}

static void childGraphs() {
    cudaGraph_t child = chain(1, 0);
    cudaGraph_t parent;
    CHECK(cudaGraphCreate(&parent, 0));
    cudaGraphNode_t root, childNode;
    CHECK(cudaGraphAddEmptyNode(&root, parent, nullptr, 0));
    CHECK(cudaGraphAddChildGraphNode(&childNode, parent, &root, 1, child));
    CHECK(cudaGraphDestroy(child));  // the node holds a copy

    cudaGraph_t inner = nullptr;
    CHECK(cudaGraphChildGraphNodeGetGraph(childNode, &inner));
    cudaGraph_t again = nullptr;
    CHECK(cudaGraphChildGraphNodeGetGraph(childNode, &again));
    EXPECT(inner != nullptr && again == inner);
    size_t count = 0;
    CHECK(cudaGraphGetNodes(inner, nullptr, &count));
    EXPECT(count == 1);
    cudaGraphNode_t first;
    CHECK(cudaGraphGetNodes(inner, &first, &count));
    // Through the handle: the kernel bumps by 5 now, and a second kernel follows (+10).
    int five = 5, ten = 10;
    void *fiveArgs[] = {&five}, *tenArgs[] = {&ten};
    cudaKernelNodeParams kp = bumpParams(fiveArgs);
    CHECK(cudaGraphKernelNodeSetParams(first, &kp));
    kp = bumpParams(tenArgs);
    cudaGraphNode_t second;
    CHECK(cudaGraphAddKernelNode(&second, inner, &first, 1, &kp));
    REFUSED(cudaGraphChildGraphNodeGetGraph(root, &again), cudaErrorInvalidValue);

    int zeros[N] = {};
    CHECK(cudaMemcpyToSymbol(table, zeros, sizeof zeros));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, parent, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    tableShouldBe(15);

    // The instantiation's child graph replaced by one of the same shape, then refused one
    // of another shape; the parent graph keeps its own.
    cudaGraph_t same = chain(100, 1000), other = chain(7, 0);
    CHECK(cudaGraphExecChildGraphNodeSetParams(exec, childNode, same));
    REFUSED(cudaGraphExecChildGraphNodeSetParams(exec, childNode, other),
            cudaErrorGraphExecUpdateFailure);
    REFUSED(cudaGraphExecChildGraphNodeSetParams(exec, root, same), cudaErrorInvalidValue);
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    tableShouldBe(1115);
    CHECK(cudaGraphGetNodes(inner, nullptr, &count));
    EXPECT(count == 2);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(same));
    CHECK(cudaGraphDestroy(other));
    CHECK(cudaGraphDestroy(parent));
}

// The generic node API: nodes of each kind added from cudaGraphNodeParams, changed in the
// graph and in an instantiation.
static cudaGraphNodeParams iotaNode(int **out, int *start) {
    static void *args[2];
    args[0] = out;
    args[1] = start;
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = (void *)iota;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(N);
    p.kernel.kernelParams = args;
    return p;
}

static void genericNodes() {
    int *device, *host;
    CHECK(cudaMalloc(&device, N * sizeof(int)));
    CHECK(cudaMallocHost(&host, N * sizeof(int)));
    cudaEvent_t event;
    CHECK(cudaEventCreate(&event));
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));

    cudaGraphNodeParams fill = {};
    fill.type = cudaGraphNodeTypeMemset;
    fill.memset.dst = device;
    fill.memset.value = 0;
    fill.memset.elementSize = sizeof(int);
    fill.memset.width = N;
    fill.memset.height = 1;
    cudaGraphNode_t a, b, c, d, e;
    CHECK(cudaGraphAddNode(&a, graph, nullptr, nullptr, 0, &fill));
    int start = 3;
    cudaGraphNodeParams kernel = iotaNode(&device, &start);
    CHECK(cudaGraphAddNode(&b, graph, &a, nullptr, 1, &kernel));
    cudaGraphNodeParams copy = {};
    copy.type = cudaGraphNodeTypeMemcpy;
    copy.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(device, N * sizeof(int), N * sizeof(int), 1);
    copy.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(host, N * sizeof(int), N * sizeof(int), 1);
    copy.memcpy.copyParams.extent = make_cudaExtent(N * sizeof(int), 1, 1);
    copy.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddNode(&c, graph, &b, nullptr, 1, &copy));
    cudaGraphNodeParams record = {};
    record.type = cudaGraphNodeTypeEventRecord;
    record.eventRecord.event = event;
    CHECK(cudaGraphAddNode(&d, graph, &c, nullptr, 1, &record));
    cudaGraphNodeParams empty = {};
    empty.type = cudaGraphNodeTypeEmpty;
    CHECK(cudaGraphAddNode(&e, graph, &d, nullptr, 1, &empty));
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(b, &type));
    EXPECT(type == cudaGraphNodeTypeKernel);
    cudaEvent_t seen;
    CHECK(cudaGraphEventRecordNodeGetEvent(d, &seen));
    EXPECT(seen == event);

    // An allocation and its free, from the generic parameters too.
    cudaGraphNodeParams alloc = {};
    alloc.type = cudaGraphNodeTypeMemAlloc;
    alloc.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.alloc.poolProps.location.id = 0;
    alloc.alloc.bytesize = 4096;
    cudaGraphNode_t allocNode, freeNode;
    CHECK(cudaGraphAddNode(&allocNode, graph, &e, nullptr, 1, &alloc));
    EXPECT(alloc.alloc.dptr != nullptr);
    cudaGraphNodeParams release = {};
    release.type = cudaGraphNodeTypeMemFree;
    release.free.dptr = alloc.alloc.dptr;
    CHECK(cudaGraphAddNode(&freeNode, graph, &allocNode, nullptr, 1, &release));

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 3 + i);

    // The instantiation's kernel starts at 9; then the graph's at 50, instantiated anew.
    start = 9;
    kernel = iotaNode(&device, &start);
    CHECK(cudaGraphExecNodeSetParams(exec, b, &kernel));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 9 + i);
    start = 50;
    kernel = iotaNode(&device, &start);
    CHECK(cudaGraphNodeSetParams(b, &kernel));
    cudaGraphExec_t exec2;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphInstantiate(&exec2, graph, 0));
    CHECK(cudaGraphLaunch(exec2, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < N; i++) EXPECT(host[i] == 50 + i);

    // Misuse: a type that is none, reserved fields set, parameters of another type.
    cudaGraphNodeParams bad = empty;
    bad.type = (cudaGraphNodeType)99;
    cudaGraphNode_t refused;
    REFUSED(cudaGraphAddNode(&refused, graph, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);
    bad = empty;
    bad.reserved0[1] = 1;
    REFUSED(cudaGraphAddNode(&refused, graph, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);
    REFUSED(cudaGraphNodeSetParams(b, &fill), cudaErrorInvalidValue);

    CHECK(cudaGraphExecDestroy(exec2));
    CHECK(cudaGraphDestroy(graph));

    // A child graph moved into its node: the holder runs it and destroys it.
    cudaGraph_t moved = chain(1, 0), holder;
    CHECK(cudaGraphCreate(&holder, 0));
    cudaGraphNodeParams child = {};
    child.type = cudaGraphNodeTypeGraph;
    child.graph.graph = moved;
    child.graph.ownership = cudaGraphChildGraphOwnershipMove;
    cudaGraphNode_t childNode;
    CHECK(cudaGraphAddNode(&childNode, holder, nullptr, nullptr, 0, &child));
    int zeros[N] = {};
    CHECK(cudaMemcpyToSymbol(table, zeros, sizeof zeros));
    CHECK(cudaGraphInstantiate(&exec, holder, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    tableShouldBe(1);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(holder));
    CHECK(cudaEventDestroy(event));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(device));
}

int main() {
    symbolNodes();
    eventNodes();
    kernelAttributes();
    userObjects();
    captureIntoGraph();
    memoryNodes();
    capturedAllocation();
    childGraphs();
    genericNodes();
    printf("graph_node_params: passed\n");
    return 0;
}
