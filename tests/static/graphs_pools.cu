// The runtime's newer surface through a statically linked runtime: a graph built by hand
// (kernel, memset, memcpy and host nodes, a child graph), instantiated, launched, its kernel
// node's parameters updated in place; stream capture across two streams joined by events,
// with an async copy inside; stream-ordered allocation from the default pool and from a pool
// of the program's own, trimmed; a cooperative launch whose blocks synchronise the grid;
// managed memory written by a kernel and read by the host; kernel printf. Prints its values
// and "graphs_pools: ok".
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

__global__ void axpb(int *x, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}

__global__ void grid_sum(const int *in, int *partial, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    int sum = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    atomicAdd(&partial[blockIdx.x], sum);
    grid.sync();
    if (grid.thread_rank() == 0) {
        int total = 0;
        for (unsigned b = 0; b < gridDim.x; b++) total += partial[b];
        *out = total;
        printf("grid_sum over %u blocks: %d\n", gridDim.x, total);
    }
}

static void CUDART_CB note(void *data) { ++*static_cast<int *>(data); }

static int host_sum(const std::vector<int> &v) {
    int s = 0;
    for (int x : v) s += x;
    return s;
}

int main() {
    const int n = 1000;
    std::vector<int> host(n), back(n);
    for (int i = 0; i < n; i++) host[i] = i % 17;
    int *d_x;
    CHECK(cudaMalloc(&d_x, n * sizeof(int)));

    // A graph by hand: memset -> copy in -> kernel -> child(kernel) -> copy out -> host node.
    cudaGraph_t graph, child;
    CHECK(cudaGraphCreate(&graph, 0));
    CHECK(cudaGraphCreate(&child, 0));
    int a = 2, b = 1, count = n;
    void *args[] = {&d_x, &a, &b, &count};
    cudaKernelNodeParams kp = {};
    kp.func = reinterpret_cast<void *>(axpb);
    kp.gridDim = dim3((n + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t set, in, kern, sub, out, done, child_kern;
    cudaMemsetParams zero = {};
    zero.dst = d_x;
    zero.value = 0;
    zero.elementSize = 4;
    zero.width = n;
    zero.height = 1;
    CHECK(cudaGraphAddMemsetNode(&set, graph, nullptr, 0, &zero));
    CHECK(cudaGraphAddMemcpyNode1D(&in, graph, &set, 1, d_x, host.data(), n * sizeof(int),
                                   cudaMemcpyHostToDevice));
    CHECK(cudaGraphAddKernelNode(&kern, graph, &in, 1, &kp));
    int a2 = 1, b2 = 3;
    void *child_args[] = {&d_x, &a2, &b2, &count};
    cudaKernelNodeParams ckp = kp;
    ckp.kernelParams = child_args;
    CHECK(cudaGraphAddKernelNode(&child_kern, child, nullptr, 0, &ckp));
    CHECK(cudaGraphAddChildGraphNode(&sub, graph, &kern, 1, child));
    CHECK(cudaGraphAddMemcpyNode1D(&out, graph, &sub, 1, back.data(), d_x, n * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    int host_calls = 0;
    cudaHostNodeParams hp = {note, &host_calls};
    CHECK(cudaGraphAddHostNode(&done, graph, &out, 1, &hp));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    std::vector<int> expect(n);
    for (int i = 0; i < n; i++) expect[i] = (2 * host[i] + 1) + 3;
    bool ok = back == expect && host_calls == 1;
    printf("graph: %zu nodes, sum %d (expected %d), host node ran %d time(s)\n", nodes,
           host_sum(back), host_sum(expect), host_calls);

    // Update the kernel node's parameters in the instantiated graph, launch again.
    int a3 = 3;
    void *new_args[] = {&d_x, &a3, &b, &count};
    kp.kernelParams = new_args;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kern, &kp));
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; i++) expect[i] = (3 * host[i] + 1) + 3;
    ok = ok && back == expect && host_calls == 2;
    printf("updated graph: sum %d (expected %d)\n", host_sum(back), host_sum(expect));

    // Capture across two streams: s1 forks to s2 through an event, both work, s2 joins back.
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    int *d_y;
    CHECK(cudaMalloc(&d_y, n * sizeof(int)));
    cudaGraph_t captured;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(d_x, host.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMemcpyAsync(d_y, d_x, n * sizeof(int), cudaMemcpyDeviceToDevice, s2));
    axpb<<<(n + 127) / 128, 128, 0, s2>>>(d_y, 10, 0, n);
    axpb<<<(n + 127) / 128, 128, 0, s1>>>(d_x, 1, 5, n);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    CHECK(cudaStreamEndCapture(s1, &captured));
    cudaGraphExec_t captured_exec;
    CHECK(cudaGraphInstantiate(&captured_exec, captured, 0));
    CHECK(cudaGraphLaunch(captured_exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    std::vector<int> xs(n), ys(n);
    CHECK(cudaMemcpy(xs.data(), d_x, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ys.data(), d_y, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool cap_ok = true;
    for (int i = 0; i < n; i++) cap_ok = cap_ok && xs[i] == host[i] + 5 && ys[i] == 10 * host[i];
    ok = ok && cap_ok;
    printf("captured fork/join: x sum %d, y sum %d (%s)\n", host_sum(xs), host_sum(ys),
           cap_ok ? "as expected" : "WRONG");

    // The captured kernel nodes name their __global__ function (NVIDIA's static runtime finds it
    // by the CUkernel the driver's cuGraphKernelNodeGetParams_v2 returns).
    size_t captured_count = 0;
    CHECK(cudaGraphGetNodes(captured, nullptr, &captured_count));
    std::vector<cudaGraphNode_t> captured_nodes(captured_count);
    CHECK(cudaGraphGetNodes(captured, captured_nodes.data(), &captured_count));
    int kernel_nodes = 0, named = 0;
    for (cudaGraphNode_t node : captured_nodes) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) continue;
        cudaKernelNodeParams got = {};
        CHECK(cudaGraphKernelNodeGetParams(node, &got));
        ++kernel_nodes;
        named += got.func == (void *)axpb && got.blockDim.x == 128 && got.gridDim.x == (n + 127) / 128;
    }
    cudaKernelNodeParams built = {};
    CHECK(cudaGraphKernelNodeGetParams(kern, &built));
    bool params_ok = kernel_nodes == 2 && named == 2 && built.func == kp.func;
    ok = ok && params_ok;
    printf("kernel node parameters: %d of %d captured nodes name axpb, built node %s\n", named, kernel_nodes,
           built.func == kp.func ? "names its function" : "WRONG");

    // Stream-ordered allocation: the default pool, then a pool of our own, trimmed.
    int *tmp;
    CHECK(cudaMallocAsync(&tmp, n * sizeof(int), s1));
    CHECK(cudaMemcpyAsync(tmp, host.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1));
    axpb<<<(n + 127) / 128, 128, 0, s1>>>(tmp, 1, 1, n);
    CHECK(cudaMemcpyAsync(back.data(), tmp, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaFreeAsync(tmp, s1));
    CHECK(cudaStreamSynchronize(s1));
    int pool_sum = host_sum(back);
    cudaMemPool_t pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    unsigned long long threshold = 1 << 20;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    for (int round = 0; round < 4; round++) {
        int *p;
        CHECK(cudaMallocFromPoolAsync(&p, 64 << 10, pool, s2));
        CHECK(cudaMemsetAsync(p, round, 64 << 10, s2));
        CHECK(cudaFreeAsync(p, s2));
    }
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(cudaMemPoolDestroy(pool));
    ok = ok && pool_sum == host_sum(host) + n;
    printf("pools: sum %d (expected %d)\n", pool_sum, host_sum(host) + n);

    // A cooperative launch that synchronises the grid.
    int *d_partial, *d_total, total = 0;
    int blocks = 4;
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
    CHECK(cudaMemset(d_partial, 0, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(int)));
    CHECK(cudaMemcpy(d_x, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    void *coop_args[] = {&d_x, &d_partial, &d_total, &count};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void *>(grid_sum), blocks, 64, coop_args,
                                      0, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    ok = ok && total == host_sum(host);

    // Managed memory: the kernel writes, the host reads after synchronizing.
    int *managed;
    CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
    for (int i = 0; i < n; i++) managed[i] = host[i];
    axpb<<<(n + 127) / 128, 128>>>(managed, 4, -1, n);
    CHECK(cudaDeviceSynchronize());
    int managed_sum = 0;
    for (int i = 0; i < n; i++) managed_sum += managed[i];
    ok = ok && managed_sum == 4 * host_sum(host) - n;
    printf("managed: sum %d (expected %d)\n", managed_sum, 4 * host_sum(host) - n);

    CHECK(cudaFree(managed));
    CHECK(cudaGraphExecDestroy(captured_exec));
    CHECK(cudaGraphDestroy(captured));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_total));
    printf(ok ? "graphs_pools: ok\n" : "graphs_pools: FAILED\n");
    return ok ? 0 : 1;
}
