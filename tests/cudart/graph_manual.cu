// A CUDA graph built node by node, the way CUDA's samples build one: copies described by
// cudaMemcpy3DParms and 1D copies, 1D and pitched fills, templated kernels, a host node that
// finishes a reduction, a child graph and an empty join node, edges added afterwards; the
// graph is queried, instantiated, uploaded and launched, then changed in its instantiation
// (kernel, fill, copy and host node parameters, a node disabled), updated from the changed
// graph with cudaGraphExecUpdate, and cloned (the clone instantiated and uploaded through
// cudaGraphInstantiateWithParams). Every round's results are checked against the host and
// printed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T result, const char *func, const char *file, int line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}
#define require(cond)                                                              \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(EXIT_FAILURE);                                                    \
        }                                                                          \
    } while (0)

const int N = 1 << 14;     // elements reduced
const int BLOCK = 256;     // threads per block of the reduction
const int GRID = 32;       // blocks of the reduction (grid-stride)
const int M = 1000;        // elements the child graph numbers
const int ROWS = 24;       // rows of the pitched matrix
const int COLS = 40;       // ints per row

// y = a * x + b
template <typename T>
__global__ void axpb(T *y, const T *x, T a, T b, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + b;
}

// partial[blockIdx.x] = the sum of this block's grid-stride share of in[]
template <typename T, int THREADS>
__global__ void blockSum(const T *in, T *partial, int n) {
    __shared__ T cache[THREADS];
    T sum = 0;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) sum += in[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

// out[i] = start + i * step
template <typename T>
__global__ void iota(T *out, T start, T step, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = start + (T)i * step;
}

struct Reduction {
    const float *partial;  // GRID partial sums, copied back by the graph
    double sum;
    int calls;
    const char *who;
};

static void CUDART_CB finishReduction(void *data) {
    Reduction *r = (Reduction *)data;
    double sum = 0;
    for (int i = 0; i < GRID; i++) sum += r->partial[i];
    r->sum = sum;
    r->calls++;
}

struct Buffers {
    float *x, *y, *partial;
    int *idx, *mat;
    size_t matPitch;
};

struct Host {
    std::vector<float> x, partial;
    std::vector<int> idx, mat;
};

static cudaKernelNodeParams axpbParams(void **args) {
    cudaKernelNodeParams p = {};
    p.func = (void *)axpb<float>;
    p.gridDim = dim3(N / BLOCK);
    p.blockDim = dim3(BLOCK);
    p.kernelParams = args;
    return p;
}

static cudaMemsetParams matFill(const Buffers &d, int value) {
    cudaMemsetParams p = {};
    p.dst = d.mat;
    p.pitch = d.matPitch;
    p.value = value;
    p.elementSize = sizeof(int);
    p.width = COLS;
    p.height = ROWS;
    return p;
}

static cudaMemcpy3DParms matToHost(const Buffers &d, Host &h, int rows) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(d.mat, d.matPitch, COLS * sizeof(int), ROWS);
    p.dstPtr = make_cudaPitchedPtr(h.mat.data(), COLS * sizeof(int), COLS * sizeof(int), ROWS);
    p.extent = make_cudaExtent(COLS * sizeof(int), rows, 1);
    p.kind = cudaMemcpyDeviceToHost;
    return p;
}

// The expected outcome of one launch, checked and printed.
static void verify(const char *round, const Host &h, const Reduction &r, float a, float b,
                   int idxStart, int idxStep, int matValue, int matRows) {
    double expect = 0;
    for (int i = 0; i < N; i++) expect += (double)(a * h.x[i] + b);
    int idxBad = 0;
    for (int i = 0; i < M; i++) idxBad += h.idx[i] != idxStart + i * idxStep;
    int matBad = 0;
    for (int row = 0; row < matRows; row++)
        for (int col = 0; col < COLS; col++) matBad += h.mat[row * COLS + col] != matValue;
    printf("%-28s sum %.1f (host %.1f, %d host-node call(s) by %s), idx[%d] = %d, mat[%d][%d] = %d\n",
           round, r.sum, expect, r.calls, r.who, M - 1, h.idx[M - 1], matRows - 1, COLS - 1,
           h.mat[(matRows - 1) * COLS + COLS - 1]);
    require(r.sum == expect);
    require(idxBad == 0);
    require(matBad == 0);
}

int main() {
    Buffers d;
    Host h;
    h.x.resize(N);
    h.partial.assign(GRID, -1.0f);
    h.idx.assign(M, -1);
    h.mat.assign(ROWS * COLS, -1);
    for (int i = 0; i < N; i++) h.x[i] = (float)(i % 17);
    checkCudaErrors(cudaMalloc(&d.x, N * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d.y, N * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d.partial, GRID * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d.idx, M * sizeof(int)));
    checkCudaErrors(cudaMallocPitch((void **)&d.mat, &d.matPitch, COLS * sizeof(int), ROWS));
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // The child graph: number M elements, then copy them back.
    cudaGraph_t child;
    checkCudaErrors(cudaGraphCreate(&child, 0));
    int idxStart = 100, idxStep = 3, m = M;
    void *iotaArgs[] = {&d.idx, &idxStart, &idxStep, &m};
    cudaKernelNodeParams iotaNode = {};
    iotaNode.func = (void *)iota<int>;
    iotaNode.gridDim = dim3((M + 127) / 128);
    iotaNode.blockDim = dim3(128);
    iotaNode.kernelParams = iotaArgs;
    cudaGraphNode_t childKernel, childCopy;
    checkCudaErrors(cudaGraphAddKernelNode(&childKernel, child, NULL, 0, &iotaNode));
    checkCudaErrors(cudaGraphAddMemcpyNode1D(&childCopy, child, &childKernel, 1, h.idx.data(),
                                             d.idx, M * sizeof(int), cudaMemcpyDeviceToHost));

    // The main graph.
    cudaGraph_t graph;
    checkCudaErrors(cudaGraphCreate(&graph, 0));
    cudaMemcpy3DParms toDevice = {};
    toDevice.srcPtr = make_cudaPitchedPtr(h.x.data(), N * sizeof(float), N, 1);
    toDevice.dstPtr = make_cudaPitchedPtr(d.x, N * sizeof(float), N, 1);
    toDevice.extent = make_cudaExtent(N * sizeof(float), 1, 1);
    toDevice.kind = cudaMemcpyHostToDevice;
    cudaGraphNode_t copyIn, clearPartial, scale, reduce, copyOut, finish, childNode, fillMat,
        copyMat, join;
    checkCudaErrors(cudaGraphAddMemcpyNode(&copyIn, graph, NULL, 0, &toDevice));

    cudaMemsetParams clear = {};
    clear.dst = d.partial;
    clear.value = 0;
    clear.elementSize = sizeof(float);
    clear.width = GRID;
    clear.height = 1;
    checkCudaErrors(cudaGraphAddMemsetNode(&clearPartial, graph, NULL, 0, &clear));

    float a = 2.0f, b = 1.0f;
    int n = N;
    void *scaleArgs[] = {&d.y, &d.x, &a, &b, &n};
    cudaKernelNodeParams scaleNode = axpbParams(scaleArgs);
    checkCudaErrors(cudaGraphAddKernelNode(&scale, graph, &copyIn, 1, &scaleNode));

    void *reduceArgs[] = {&d.y, &d.partial, &n};
    cudaKernelNodeParams reduceNode = {};
    reduceNode.func = (void *)blockSum<float, BLOCK>;
    reduceNode.gridDim = dim3(GRID);
    reduceNode.blockDim = dim3(BLOCK);
    reduceNode.kernelParams = reduceArgs;
    cudaGraphNode_t reduceDeps[] = {scale, clearPartial};
    checkCudaErrors(cudaGraphAddKernelNode(&reduce, graph, reduceDeps, 2, &reduceNode));
    checkCudaErrors(cudaGraphAddMemcpyNode1D(&copyOut, graph, &reduce, 1, h.partial.data(),
                                             d.partial, GRID * sizeof(float),
                                             cudaMemcpyDeviceToHost));

    Reduction first = {h.partial.data(), 0, 0, "first"};
    Reduction second = {h.partial.data(), 0, 0, "second"};
    cudaHostNodeParams hostNode = {finishReduction, &first};
    checkCudaErrors(cudaGraphAddHostNode(&finish, graph, &copyOut, 1, &hostNode));

    checkCudaErrors(cudaGraphAddChildGraphNode(&childNode, graph, NULL, 0, child));
    cudaMemsetParams fill = matFill(d, 7);
    checkCudaErrors(cudaGraphAddMemsetNode(&fillMat, graph, NULL, 0, &fill));
    cudaMemcpy3DParms matCopy = matToHost(d, h, ROWS);
    checkCudaErrors(cudaGraphAddMemcpyNode(&copyMat, graph, &fillMat, 1, &matCopy));
    checkCudaErrors(cudaGraphAddEmptyNode(&join, graph, NULL, 0));
    // Edges added afterwards: the child graph after the fill of the partial sums, and the
    // join after the host node, the child graph and the matrix copy.
    cudaGraphNode_t from[] = {clearPartial, finish, childNode, copyMat};
    cudaGraphNode_t to[] = {childNode, join, join, join};
    checkCudaErrors(cudaGraphAddDependencies(graph, from, to, NULL, 4));

    // Queries.
    size_t count = 0, roots = 0, edges = 0, deps = 0, dependents = 0;
    checkCudaErrors(cudaGraphGetNodes(graph, NULL, &count));
    checkCudaErrors(cudaGraphGetRootNodes(graph, NULL, &roots));
    checkCudaErrors(cudaGraphGetEdges(graph, NULL, NULL, NULL, &edges));
    checkCudaErrors(cudaGraphNodeGetDependencies(reduce, NULL, NULL, &deps));
    checkCudaErrors(cudaGraphNodeGetDependentNodes(clearPartial, NULL, NULL, &dependents));
    printf("graph: %zu nodes, %zu roots, %zu edges; reduce has %zu dependencies, the fill of "
           "the partial sums %zu dependents\n",
           count, roots, edges, deps, dependents);
    require(count == 10 && roots == 3 && edges == 10 && deps == 2 && dependents == 2);
    cudaGraphNode_t reduceDepList[2];
    checkCudaErrors(cudaGraphNodeGetDependencies(reduce, reduceDepList, NULL, &deps));
    require((reduceDepList[0] == scale && reduceDepList[1] == clearPartial) ||
            (reduceDepList[1] == scale && reduceDepList[0] == clearPartial));
    cudaGraphNodeType type;
    checkCudaErrors(cudaGraphNodeGetType(childNode, &type));
    require(type == cudaGraphNodeTypeGraph);
    checkCudaErrors(cudaGraphNodeGetType(join, &type));
    require(type == cudaGraphNodeTypeEmpty);
    cudaHostNodeParams gotHost;
    checkCudaErrors(cudaGraphHostNodeGetParams(finish, &gotHost));
    require(gotHost.fn == finishReduction && gotHost.userData == &first);
    cudaMemsetParams gotFill;
    checkCudaErrors(cudaGraphMemsetNodeGetParams(fillMat, &gotFill));
    require(gotFill.value == 7 && gotFill.height == ROWS && gotFill.pitch == d.matPitch);
    cudaMemcpy3DParms gotCopy;
    checkCudaErrors(cudaGraphMemcpyNodeGetParams(copyMat, &gotCopy));
    require(gotCopy.extent.height == ROWS && gotCopy.srcPtr.ptr == d.mat &&
            gotCopy.kind == cudaMemcpyDeviceToHost);

    // Round 1: instantiated, uploaded, launched.
    cudaGraphExec_t exec;
    checkCudaErrors(cudaGraphInstantiate(&exec, graph, 0));
    checkCudaErrors(cudaGraphUpload(exec, stream));
    checkCudaErrors(cudaGraphLaunch(exec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    verify("instantiated:", h, first, a, b, idxStart, idxStep, 7, ROWS);

    // Round 2: the instantiation changed node by node (the graph keeps its parameters).
    float a2 = 3.0f, b2 = -1.0f;
    void *scaleArgs2[] = {&d.y, &d.x, &a2, &b2, &n};
    cudaKernelNodeParams scaleNode2 = axpbParams(scaleArgs2);
    checkCudaErrors(cudaGraphExecKernelNodeSetParams(exec, scale, &scaleNode2));
    cudaMemsetParams fill2 = matFill(d, 11);
    checkCudaErrors(cudaGraphExecMemsetNodeSetParams(exec, fillMat, &fill2));
    // An instantiation's memcpy node changes only 1-dimensional copies: a 2D one is refused
    // (cudaErrorInvalidValue on an H200) and the node keeps its copy.
    cudaMemcpy3DParms matCopy2 = matToHost(d, h, ROWS / 2);
    require(cudaGraphExecMemcpyNodeSetParams(exec, copyMat, &matCopy2) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    cudaHostNodeParams hostNode2 = {finishReduction, &second};
    checkCudaErrors(cudaGraphExecHostNodeSetParams(exec, finish, &hostNode2));
    checkCudaErrors(cudaGraphLaunch(exec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    require(first.calls == 1);
    verify("exec node parameters set:", h, second, a2, b2, idxStart, idxStep, 11, ROWS);

    // Round 3: a node disabled in the instantiation, then enabled again.
    checkCudaErrors(cudaGraphNodeSetEnabled(exec, fillMat, 0));
    unsigned int enabled = 1;
    checkCudaErrors(cudaGraphNodeGetEnabled(exec, fillMat, &enabled));
    require(enabled == 0);
    checkCudaErrors(cudaMemset(d.mat, 0, d.matPitch * ROWS));
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaGraphLaunch(exec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    verify("fill disabled:", h, second, a2, b2, idxStart, idxStep, 0, ROWS);
    checkCudaErrors(cudaGraphNodeSetEnabled(exec, fillMat, 1));

    // Round 4: the graph changed, the instantiation updated from it.
    float a3 = 5.0f, b3 = 2.0f;
    void *scaleArgs3[] = {&d.y, &d.x, &a3, &b3, &n};
    cudaKernelNodeParams scaleNode3 = axpbParams(scaleArgs3);
    checkCudaErrors(cudaGraphKernelNodeSetParams(scale, &scaleNode3));
    cudaMemsetParams fill3 = matFill(d, 13);
    checkCudaErrors(cudaGraphMemsetNodeSetParams(fillMat, &fill3));
    checkCudaErrors(cudaGraphHostNodeSetParams(finish, &hostNode));
    cudaGraphExecUpdateResultInfo info;
    checkCudaErrors(cudaGraphExecUpdate(exec, graph, &info));
    require(info.result == cudaGraphExecUpdateSuccess);
    checkCudaErrors(cudaGraphLaunch(exec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    verify("updated from the graph:", h, first, a3, b3, idxStart, idxStep, 13, ROWS);
    require(first.calls == 2 && second.calls == 2);

    // Round 5: a clone with its own scale, launched after the original.
    cudaGraph_t clone;
    checkCudaErrors(cudaGraphClone(&clone, graph));
    cudaGraphNode_t cloneScale, cloneFinish;
    checkCudaErrors(cudaGraphNodeFindInClone(&cloneScale, scale, clone));
    checkCudaErrors(cudaGraphNodeFindInClone(&cloneFinish, finish, clone));
    float a4 = 7.0f, b4 = 0.0f;
    void *scaleArgs4[] = {&d.y, &d.x, &a4, &b4, &n};
    cudaKernelNodeParams scaleNode4 = axpbParams(scaleArgs4);
    checkCudaErrors(cudaGraphKernelNodeSetParams(cloneScale, &scaleNode4));
    checkCudaErrors(cudaGraphHostNodeSetParams(cloneFinish, &hostNode2));
    cudaGraphExec_t cloneExec;
    cudaGraphInstantiateParams instantiate = {};
    instantiate.uploadStream = stream;
    instantiate.result_out = cudaGraphInstantiateError;
    checkCudaErrors(cudaGraphInstantiateWithParams(&cloneExec, clone, &instantiate));
    require(instantiate.result_out == cudaGraphInstantiateSuccess);
    checkCudaErrors(cudaGraphLaunch(exec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    verify("original after cloning:", h, first, a3, b3, idxStart, idxStep, 13, ROWS);
    checkCudaErrors(cudaGraphLaunch(cloneExec, stream));
    checkCudaErrors(cudaStreamSynchronize(stream));
    verify("clone:", h, second, a4, b4, idxStart, idxStep, 13, ROWS);
    unsigned long long flags = 1;
    checkCudaErrors(cudaGraphExecGetFlags(cloneExec, &flags));
    require(flags == 0);

    // Misuse gets CUDA's codes.
    require(cudaGraphExecMemsetNodeSetParams(exec, scale, &fill2) == cudaErrorInvalidValue);
    require(cudaGraphHostNodeGetParams(scale, &gotHost) == cudaErrorInvalidValue);
    require(cudaGraphNodeSetEnabled(exec, finish, 0) == cudaErrorInvalidValue);
    printf("misuse: %s\n", cudaGetErrorName(cudaGetLastError()));

    checkCudaErrors(cudaGraphExecDestroy(cloneExec));
    checkCudaErrors(cudaGraphExecDestroy(exec));
    checkCudaErrors(cudaGraphDestroy(clone));
    checkCudaErrors(cudaGraphDestroy(graph));
    checkCudaErrors(cudaGraphDestroy(child));
    checkCudaErrors(cudaStreamDestroy(stream));
    checkCudaErrors(cudaFree(d.x));
    checkCudaErrors(cudaFree(d.y));
    checkCudaErrors(cudaFree(d.partial));
    checkCudaErrors(cudaFree(d.idx));
    checkCudaErrors(cudaFree(d.mat));
    printf("graph_manual: passed\n");
    return 0;
}
