// The explicit graph API, written as a CUDA sample is: a graph built by hand with kernel,
// memset, copy, host, empty, event and child-graph nodes, instantiated, launched, updated
// with cudaGraphExecUpdate and cudaGraphExecKernelNodeSetParams, cloned and uploaded; every
// result checked against a host computation, and misuse answered with CUDA's codes.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)
#define EXPECT(cond)                                                  \
    do {                                                              \
        if (!(cond)) {                                                \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                  \
        }                                                             \
    } while (0)

const int N = 1024;

__global__ void scale(float *x, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
__global__ void add(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
__global__ void offset(float *x, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += value;
}

struct HostSum {
    const float *data;
    int n;
    double sum;
    int calls;
};
static void CUDART_CB sum_on_host(void *p) {
    HostSum *s = (HostSum *)p;
    double total = 0;
    for (int i = 0; i < s->n; i++) total += s->data[i];
    s->sum = total;
    s->calls++;
}

static cudaKernelNodeParams kernel_params(void *func, void **args) {
    cudaKernelNodeParams p = {};
    p.func = func;
    p.gridDim = dim3((N + 255) / 256);
    p.blockDim = dim3(256);
    p.sharedMemBytes = 0;
    p.kernelParams = args;
    p.extra = NULL;
    return p;
}

// y = (x * a + y_init) + b, copied to the host, summed there.
struct Built {
    cudaGraph_t graph;
    cudaGraphNode_t scale_node, add_node, host_node;
};

int main() {
    float *x, *y, *host_x = (float *)malloc(N * sizeof(float));
    float *host_y = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) host_x[i] = (float)(i % 17);
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    CHECK(cudaMalloc(&y, N * sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

    // A child graph: y += 2 (offset kernel).
    cudaGraph_t child;
    CHECK(cudaGraphCreate(&child, 0));
    int n = N;
    float two = 2.0f;
    void *offset_args[] = {&y, &two, &n};
    cudaKernelNodeParams op = kernel_params((void *)offset, offset_args);
    cudaGraphNode_t child_offset;
    CHECK(cudaGraphAddKernelNode(&child_offset, child, NULL, 0, &op));

    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t copy_in, fill, scale_node, add_node, join, child_node, copy_out, host_node,
        record;
    CHECK(cudaGraphAddMemcpyNode1D(&copy_in, graph, NULL, 0, x, host_x, N * sizeof(float),
                                   cudaMemcpyHostToDevice));
    cudaMemsetParams mp = {};
    mp.dst = y;
    mp.value = 0;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&fill, graph, NULL, 0, &mp));
    float factor = 3.0f;
    void *scale_args[] = {&x, &factor, &n};
    cudaKernelNodeParams sp = kernel_params((void *)scale, scale_args);
    CHECK(cudaGraphAddKernelNode(&scale_node, graph, &copy_in, 1, &sp));
    cudaGraphNode_t both[] = {scale_node, fill};
    CHECK(cudaGraphAddEmptyNode(&join, graph, both, 2));
    void *add_args[] = {&y, &x, &n};
    cudaKernelNodeParams ap = kernel_params((void *)add, add_args);
    CHECK(cudaGraphAddKernelNode(&add_node, graph, NULL, 0, &ap));
    CHECK(cudaGraphAddDependencies(graph, &join, &add_node, NULL, 1));
    CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &add_node, 1, child));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_out, graph, &child_node, 1, host_y, y,
                                   N * sizeof(float), cudaMemcpyDeviceToHost));
    HostSum sum = {host_y, N, 0.0, 0};
    cudaHostNodeParams hp = {sum_on_host, &sum};
    CHECK(cudaGraphAddHostNode(&host_node, graph, &copy_out, 1, &hp));
    CHECK(cudaGraphAddEventRecordNode(&record, graph, &host_node, 1, done));

    // Queries.
    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, NULL, &count));
    EXPECT(count == 9);
    CHECK(cudaGraphGetRootNodes(graph, NULL, &count));
    EXPECT(count == 2);
    cudaGraphNode_t roots[4];
    count = 4;
    CHECK(cudaGraphGetRootNodes(graph, roots, &count));
    EXPECT(count == 2 && roots[2] == NULL);
    CHECK(cudaGraphGetEdges(graph, NULL, NULL, NULL, &count));
    EXPECT(count == 8);
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(child_node, &type));
    EXPECT(type == cudaGraphNodeTypeGraph);
    CHECK(cudaGraphNodeGetType(host_node, &type));
    EXPECT(type == cudaGraphNodeTypeHost);
    CHECK(cudaGraphNodeGetType(join, &type));
    EXPECT(type == cudaGraphNodeTypeEmpty);
    cudaKernelNodeParams got;
    CHECK(cudaGraphKernelNodeGetParams(scale_node, &got));
    EXPECT(got.func == (void *)scale && got.blockDim.x == 256 &&
           *(float *)got.kernelParams[1] == 3.0f);

    // Misuse: CUDA's codes.
    EXPECT(cudaGraphAddDependencies(graph, &join, &add_node, NULL, 1) == cudaErrorInvalidValue);
    EXPECT(cudaGraphAddKernelNode(&join, graph, &child_offset, 1, &ap) == cudaErrorInvalidValue);
    EXPECT(cudaGraphKernelNodeGetParams(host_node, &got) == cudaErrorInvalidValue);
    EXPECT(cudaGraphCreate(&child, 1) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphUpload(exec, stream));
    for (int rep = 0; rep < 3; rep++) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaStreamSynchronize(stream));
    double expect = 0;
    for (int i = 0; i < N; i++) {
        float want = host_x[i] * 3.0f + 2.0f;
        EXPECT(host_y[i] == want);
        expect += want;
    }
    EXPECT(sum.calls == 3 && sum.sum == expect);
    printf("built graph: 9 nodes, 3 launches, sum %.0f\n", sum.sum);

    // Same topology, a new factor: cudaGraphExecUpdate.
    cudaGraph_t clone;
    CHECK(cudaGraphClone(&clone, graph));
    CHECK(cudaGraphGetNodes(clone, NULL, &count));
    EXPECT(count == 9);
    CHECK(cudaGraphKernelNodeSetParams(scale_node, &sp));  // unchanged: allowed
    factor = 5.0f;
    cudaGraph_t updated;
    CHECK(cudaGraphClone(&updated, graph));
    cudaGraphNode_t cloned_scale;
    CHECK(cudaGraphNodeFindInClone(&cloned_scale, scale_node, updated));
    EXPECT(cloned_scale != scale_node);
    cudaKernelNodeParams sp5 = kernel_params((void *)scale, scale_args);
    CHECK(cudaGraphKernelNodeSetParams(cloned_scale, &sp5));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, updated, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) EXPECT(host_y[i] == host_x[i] * 5.0f + 2.0f);
    EXPECT(sum.calls == 4);

    // A changed topology is refused, naming the result.
    cudaGraphNode_t extra;
    CHECK(cudaGraphAddEmptyNode(&extra, updated, NULL, 0));
    EXPECT(cudaGraphExecUpdate(exec, updated, &info) == cudaErrorGraphExecUpdateFailure);
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
    cudaGetLastError();
    CHECK(cudaGraphDestroyNode(extra));
    CHECK(cudaGraphGetNodes(updated, NULL, &count));
    EXPECT(count == 9);

    // cudaGraphExecKernelNodeSetParams on the instantiated graph: factor 7.
    factor = 7.0f;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, scale_node, &sp));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) EXPECT(host_y[i] == host_x[i] * 7.0f + 2.0f);

    // The clone (factor 3 as recorded) runs by itself.
    cudaGraphExec_t clone_exec;
    CHECK(cudaGraphInstantiate(&clone_exec, clone, 0));
    CHECK(cudaGraphLaunch(clone_exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) EXPECT(host_y[i] == host_x[i] * 3.0f + 2.0f);
    EXPECT(sum.calls == 6);
    printf("updated, set and cloned graphs: factors 5, 7, 3 checked\n");

    CHECK(cudaGraphExecDestroy(clone_exec));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphDestroy(updated));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    printf("graph_api: passed\n");
    return 0;
}
