// Stream capture of every common operation, written as a CUDA sample is: copies in both
// directions, kernels, a memset, a host function, and a fork/join across two streams through
// events, captured once in each capture mode and replayed; results checked against a host
// computation. Also: capture status and info, and the errors of an unjoined fork and of an
// operation that cannot be captured.
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

const int N = 4096;

__global__ void square(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}
__global__ void triple(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 3 * in[i];
}
__global__ void combine(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += a[i] + b[i];
}

struct Tally {
    const int *result;
    long long sum;
    int calls;
};
static void CUDART_CB tally(void *p) {
    Tally *t = (Tally *)p;
    long long s = 0;
    for (int i = 0; i < N; i++) s += t->result[i];
    t->sum = s;
    t->calls++;
}

int main() {
    int *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, N * sizeof(int)));
    h_out = (int *)malloc(N * sizeof(int));
    int *in, *a, *b, *out;
    CHECK(cudaMalloc(&in, N * sizeof(int)));
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    CHECK(cudaMalloc(&b, N * sizeof(int)));
    CHECK(cudaMalloc(&out, N * sizeof(int)));
    cudaStream_t main_stream, side;
    CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    Tally t = {h_out, 0, 0};
    int n = N, blocks = (N + 255) / 256;

    const cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal,
                                           cudaStreamCaptureModeThreadLocal,
                                           cudaStreamCaptureModeRelaxed};
    for (int m = 0; m < 3; m++) {
        cudaStreamCaptureStatus status;
        CHECK(cudaStreamBeginCapture(main_stream, modes[m]));
        CHECK(cudaStreamIsCapturing(main_stream, &status));
        EXPECT(status == cudaStreamCaptureStatusActive);
        CHECK(cudaStreamIsCapturing(side, &status));
        EXPECT(status == cudaStreamCaptureStatusNone);
        CHECK(cudaMemcpyAsync(in, h_in, N * sizeof(int), cudaMemcpyHostToDevice, main_stream));
        CHECK(cudaMemsetAsync(out, 0, N * sizeof(int), main_stream));
        CHECK(cudaEventRecord(fork, main_stream));
        CHECK(cudaStreamWaitEvent(side, fork, 0));  // side joins the capture
        CHECK(cudaStreamIsCapturing(side, &status));
        EXPECT(status == cudaStreamCaptureStatusActive);
        square<<<blocks, 256, 0, main_stream>>>(a, in, n);
        triple<<<blocks, 256, 0, side>>>(b, in, n);
        CHECK(cudaEventRecord(join, side));
        CHECK(cudaStreamWaitEvent(main_stream, join, 0));
        unsigned long long id;
        const cudaGraphNode_t *deps;
        size_t ndeps;
        CHECK(cudaStreamGetCaptureInfo(main_stream, &status, &id, NULL, &deps, NULL, &ndeps));
        EXPECT(status == cudaStreamCaptureStatusActive && ndeps == 2);
        combine<<<blocks, 256, 0, main_stream>>>(out, a, b, n);
        CHECK(cudaMemcpyAsync(h_out, out, N * sizeof(int), cudaMemcpyDeviceToHost, main_stream));
        CHECK(cudaLaunchHostFunc(main_stream, tally, &t));
        cudaGraph_t graph;
        CHECK(cudaStreamEndCapture(main_stream, &graph));
        CHECK(cudaStreamIsCapturing(side, &status));
        EXPECT(status == cudaStreamCaptureStatusNone);
        EXPECT(t.calls == 3 * m);  // nothing ran during the capture
        size_t count;
        CHECK(cudaGraphGetNodes(graph, NULL, &count));
        EXPECT(count == 7);
        CHECK(cudaGraphGetRootNodes(graph, NULL, &count));
        EXPECT(count == 1);

        cudaGraphExec_t exec;
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < N; i++) h_in[i] = (i % 100) - 50 + rep + m;
            CHECK(cudaGraphLaunch(exec, main_stream));
            CHECK(cudaStreamSynchronize(main_stream));
            long long expect = 0;
            for (int i = 0; i < N; i++) {
                int v = h_in[i];
                EXPECT(h_out[i] == v * v + 3 * v);
                expect += v * v + 3 * v;
            }
            EXPECT(t.sum == expect);
        }
        EXPECT(t.calls == 3 * (m + 1));
        printf("mode %d: 7 nodes captured across 2 streams, 3 replays, sum %lld\n", m, t.sum);
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphDestroy(graph));
    }

    // A fork never joined back: cudaErrorStreamCaptureUnjoined, no graph.
    cudaGraph_t graph = NULL;
    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
    triple<<<blocks, 256, 0, side>>>(b, in, n);
    EXPECT(cudaStreamEndCapture(side, &graph) == cudaErrorStreamCaptureUnmatched);
    cudaGetLastError();
    EXPECT(cudaStreamEndCapture(main_stream, &graph) != cudaSuccess && graph == NULL);
    cudaGetLastError();

    // A fork whose stream is left out of the end: cudaErrorStreamCaptureUnjoined.
    graph = NULL;
    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side, fork, 0));
    triple<<<blocks, 256, 0, side>>>(b, in, n);
    square<<<blocks, 256, 0, main_stream>>>(a, in, n);
    EXPECT(cudaStreamEndCapture(main_stream, &graph) == cudaErrorStreamCaptureUnjoined);
    EXPECT(graph == NULL);
    cudaGetLastError();

    // A synchronization inside a capture invalidates it.
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeRelaxed));
    square<<<blocks, 256, 0, main_stream>>>(a, in, n);
    EXPECT(cudaStreamSynchronize(main_stream) == cudaErrorStreamCaptureUnsupported);
    cudaGetLastError();
    CHECK(cudaStreamIsCapturing(main_stream, &status));
    EXPECT(status == cudaStreamCaptureStatusInvalidated);
    EXPECT(cudaStreamEndCapture(main_stream, &graph) == cudaErrorStreamCaptureInvalidated);
    EXPECT(graph == NULL);
    cudaGetLastError();
    EXPECT(cudaStreamBeginCapture(main_stream, (cudaStreamCaptureMode)7) == cudaErrorInvalidValue);
    cudaGetLastError();

    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(side));
    CHECK(cudaStreamDestroy(main_stream));
    CHECK(cudaFree(in));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(out));
    CHECK(cudaFreeHost(h_in));
    free(h_out);
    printf("graph_capture: passed\n");
    return 0;
}
