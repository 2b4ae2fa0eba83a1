// Stream capture and CUDA graphs: a loop of kernel launches (and a fill) captured once,
// instantiated, replayed with node arguments updated through cudaGraphExecKernelNodeSetParams,
// and checked against the same loop launched eagerly; capture status, node listing, and a
// capture invalidated by a synchronization. Prints a final summary line.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorName(err_));                                          \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int failures = 0;
static void expect(bool ok, const char *what) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

__global__ void step_kernel(int *data, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = (data[i] * a + b + i) % 1000003;
}

const int N = 1000;
const int STEPS = 8;
const int REPS = 5;
const int THREADS = 256;
const int BLOCKS = (N + THREADS - 1) / THREADS;

static int a_of(int step) { return 1 + step % 3; }
static int b_of(int step, int rep) { return step + 10 * rep; }

int main() {
    int *eager, *graphed;
    CHECK(cudaMalloc(&eager, N * sizeof(int)));
    CHECK(cudaMalloc(&graphed, N * sizeof(int)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    // Eager: the loop as launched.
    CHECK(cudaMemsetAsync(eager, 0, N * sizeof(int), stream));
    for (int rep = 0; rep < REPS; rep++) {
        for (int step = 0; step < STEPS; step++)
            step_kernel<<<BLOCKS, THREADS, 0, stream>>>(eager, a_of(step), b_of(step, rep), N);
        CHECK(cudaStreamSynchronize(stream));
    }

    // Captured: a fill, then one repetition's launches.
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(stream, &status));
    expect(status == cudaStreamCaptureStatusNone, "not capturing before");
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaStreamIsCapturing(stream, &status));
    expect(status == cudaStreamCaptureStatusActive, "capturing");
    CHECK(cudaMemsetAsync(graphed, 0, N * sizeof(int), stream));
    for (int step = 0; step < STEPS; step++)
        step_kernel<<<BLOCKS, THREADS, 0, stream>>>(graphed, a_of(step), b_of(step, 0), N);
    CHECK(cudaGetLastError());
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaStreamIsCapturing(stream, &status));
    expect(status == cudaStreamCaptureStatusNone, "not capturing after");

    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    expect(count == STEPS + 1, "one node per captured operation");
    std::vector<cudaGraphNode_t> nodes(count);
    CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    // The first replay fills and runs repetition 0; later ones run the launches only.
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    cudaGraph_t launches_only;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int step = 0; step < STEPS; step++)
        step_kernel<<<BLOCKS, THREADS, 0, stream>>>(graphed, a_of(step), b_of(step, 0), N);
    CHECK(cudaStreamEndCapture(stream, &launches_only));
    std::vector<cudaGraphNode_t> launch_nodes(STEPS);
    count = STEPS;
    CHECK(cudaGraphGetNodes(launches_only, launch_nodes.data(), &count));
    cudaGraphExec_t loop;
    CHECK(cudaGraphInstantiateWithFlags(&loop, launches_only, 0));
    for (int rep = 1; rep < REPS; rep++) {
        for (int step = 0; step < STEPS; step++) {
            int *data = graphed;
            int a = a_of(step), b = b_of(step, rep), n = N;
            void *args[] = {&data, &a, &b, &n};
            cudaKernelNodeParams params = {};
            params.func = (void *)step_kernel;
            params.gridDim = dim3(BLOCKS);
            params.blockDim = dim3(THREADS);
            params.kernelParams = args;
            CHECK(cudaGraphExecKernelNodeSetParams(loop, launch_nodes[step], &params));
        }
        CHECK(cudaGraphLaunch(loop, stream));
    }
    CHECK(cudaStreamSynchronize(stream));

    std::vector<int> want(N), got(N);
    CHECK(cudaMemcpy(want.data(), eager, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got.data(), graphed, N * sizeof(int), cudaMemcpyDeviceToHost));
    int differ = 0;
    for (int i = 0; i < N; i++) differ += want[i] != got[i];
    expect(differ == 0, "graph replays equal eager launches");
    expect(want[N - 1] != 0, "the kernels ran");

    // A changed configuration is taken, as CUDA takes it (the node is not launched again here).
    {
        int *data = graphed;
        int a = 1, b = 0, n = N;
        void *args[] = {&data, &a, &b, &n};
        cudaKernelNodeParams params = {};
        params.func = (void *)step_kernel;
        params.gridDim = dim3(BLOCKS + 1);
        params.blockDim = dim3(THREADS);
        params.kernelParams = args;
        expect(cudaGraphExecKernelNodeSetParams(loop, launch_nodes[0], &params) == cudaSuccess,
               "a changed grid is taken");
        cudaGetLastError();
    }

    // Synchronizing a capturing stream is refused and invalidates the capture.
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    step_kernel<<<BLOCKS, THREADS, 0, stream>>>(graphed, 1, 0, N);
    expect(cudaStreamSynchronize(stream) == cudaErrorStreamCaptureUnsupported,
           "no synchronization while capturing");
    CHECK(cudaStreamIsCapturing(stream, &status));
    expect(status == cudaStreamCaptureStatusInvalidated, "the capture is invalidated");
    cudaGraph_t invalid = graph;
    expect(cudaStreamEndCapture(stream, &invalid) == cudaErrorStreamCaptureInvalidated,
           "ending an invalidated capture");
    expect(invalid == nullptr, "no graph from an invalidated capture");
    expect(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) ==
               cudaErrorStreamCaptureUnsupported,
           "the legacy stream does not capture");
    cudaGetLastError();

    CHECK(cudaGraphExecDestroy(loop));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(launches_only));
    CHECK(cudaGraphDestroy(graph));
    expect(cudaGraphDestroy(graph) == cudaErrorInvalidValue, "a destroyed graph is refused");
    cudaGetLastError();
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(eager));
    CHECK(cudaFree(graphed));
    if (failures) {
        printf("graphs: %d failures\n", failures);
        return 1;
    }
    printf("graphs: %d kernels x %d repetitions, ok\n", STEPS, REPS);
    return 0;
}
