// A simulation step of several small kernels captured from a stream into a CUDA graph,
// instantiated once and replayed many times; the result equals the eager launches'.
#include <vector>
#include "../common/helpers.h"

__global__ void scaleK(float *v, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= s;
}

__global__ void shiftK(float *v, const float *w, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += w[(i + 1) % n];
}

__global__ void clampK(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = fminf(fmaxf(v[i], -1000.0f), 1000.0f);
}

static void step(cudaStream_t s, float *v, float *w, int n) {
    int blocks = (n + 255) / 256;
    scaleK<<<blocks, 256, 0, s>>>(v, 0.5f, n);
    shiftK<<<blocks, 256, 0, s>>>(v, w, n);
    clampK<<<blocks, 256, 0, s>>>(v, n);
    checkCudaErrors(cudaMemcpyAsync(w, v, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 16), repetitions = 50;
    std::vector<float> init(n);
    for (int i = 0; i < n; ++i) init[i] = (float)(i % 64) - 32.0f;
    cudaStream_t stream;
    checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *v, *w;
    checkCudaErrors(cudaMalloc(&v, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&w, n * sizeof(float)));
    std::vector<float> eager(n), replayed(n);
    for (int pass = 0; pass < 2; ++pass) {
        checkCudaErrors(cudaMemcpy(v, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        checkCudaErrors(cudaMemcpy(w, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        EventTimer timer;
        timer.start(stream);
        if (pass == 0) {
            for (int r = 0; r < repetitions; ++r) step(stream, v, w, n);
        } else {
            cudaGraph_t graph;
            cudaGraphExec_t exec;
            checkCudaErrors(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
            step(stream, v, w, n);
            checkCudaErrors(cudaStreamEndCapture(stream, &graph));
            checkCudaErrors(cudaGraphInstantiate(&exec, graph, 0));
            for (int r = 0; r < repetitions; ++r) checkCudaErrors(cudaGraphLaunch(exec, stream));
            checkCudaErrors(cudaGraphExecDestroy(exec));
            checkCudaErrors(cudaGraphDestroy(graph));
        }
        float ms = timer.stop(stream);
        checkCudaErrors(cudaMemcpy(pass ? replayed.data() : eager.data(), v, n * sizeof(float), cudaMemcpyDeviceToHost));
        printf("%s: %d steps\n", pass ? "graph" : "eager", repetitions);
        printf("  time: %.3f ms\n", ms);
    }
    bool ok = eager == replayed;
    printf("graph replay %s eager launches, v[1] = %.4f\n", ok ? "equals" : "DIFFERS from", replayed[1]);
    checkCudaErrors(cudaFree(v));
    checkCudaErrors(cudaFree(w));
    checkCudaErrors(cudaStreamDestroy(stream));
    return finish("graph_capture", ok);
}
