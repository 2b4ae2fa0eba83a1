// A graph built with the generic cudaGraphAddNode (CUDA 12.2's cudaGraphNodeParams), which a
// statically linked runtime turns into the driver's cuGraphAddNode_v2: a memory allocation
// node, a fill, a kernel, a host function, an empty join, an event record and wait, a child
// graph, a copy back to the host and the free. Replayed three times; prints what the host saw
// and "graph_add_node: ok".
#include <cstdio>
#include <cstring>

#include "check.h"

__global__ void addIndex(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i;
}

__global__ void twice(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

static int hostCalls = 0;
static void CUDART_CB countCall(void *) { ++hostCalls; }

static cudaGraphNode_t add(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n,
                           cudaGraphNodeParams *p) {
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, g, deps, nullptr, n, p));
    return node;
}

int main() {
    const int n = 1024;
    int host[n];
    cudaGraph_t graph, child;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphCreate(&child, 0));

    cudaGraphNodeParams p = {};
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    p.alloc.poolProps.location.id = 0;
    p.alloc.bytesize = n * sizeof(int);
    cudaGraphNode_t alloc = add(graph, nullptr, 0, &p);
    int *buffer = static_cast<int *>(p.alloc.dptr);

    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = buffer;
    p.memset.value = 3;
    p.memset.elementSize = 4;
    p.memset.width = n;
    p.memset.height = 1;
    cudaGraphNode_t fill = add(graph, &alloc, 1, &p);

    int count = n;
    void *args[] = {&buffer, &count};
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = (void *)addIndex;
    p.kernel.gridDim = dim3(n / 256);
    p.kernel.blockDim = dim3(256);
    p.kernel.kernelParams = args;
    cudaGraphNode_t kernel = add(graph, &fill, 1, &p);

    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeHost;
    p.host.fn = countCall;
    cudaGraphNode_t hostNode = add(graph, &fill, 1, &p);

    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeEmpty;
    cudaGraphNode_t both[] = {kernel, hostNode};
    cudaGraphNode_t join = add(graph, both, 2, &p);

    cudaEvent_t event;
    CHECK(cudaEventCreate(&event));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeEventRecord;
    p.eventRecord.event = event;
    cudaGraphNode_t record = add(graph, &join, 1, &p);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeWaitEvent;
    p.eventWait.event = event;
    cudaGraphNode_t wait = add(graph, &record, 1, &p);

    // The child graph doubles every value.
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = (void *)twice;
    p.kernel.gridDim = dim3(n / 256);
    p.kernel.blockDim = dim3(256);
    p.kernel.kernelParams = args;
    add(child, nullptr, 0, &p);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeGraph;
    p.graph.graph = child;
    cudaGraphNode_t childNode = add(graph, &wait, 1, &p);

    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(buffer, n * sizeof(int), n, 1);
    p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(host, n * sizeof(int), n, 1);
    p.memcpy.copyParams.extent = make_cudaExtent(n * sizeof(int), 1, 1);
    p.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
    cudaGraphNode_t copy = add(graph, &childNode, 1, &p);

    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemFree;
    p.free.dptr = buffer;
    add(graph, &copy, 1, &p);

    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    bool ok = true;
    for (int round = 0; round < 3; ++round) {
        memset(host, 0, sizeof host);
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        for (int i = 0; i < n; ++i) ok &= host[i] == 2 * (3 + i);
    }
    printf("nodes %zu, host function calls %d, host[5] %d\n", nodes, hostCalls, host[5]);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaEventDestroy(event));
    printf("graph_add_node: %s\n", ok && hostCalls == 3 ? "ok" : "FAILED");
    return ok && hostCalls == 3 ? 0 : 1;
}
