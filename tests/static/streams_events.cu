// Streams, events, pinned memory, async copies and a host callback.
#include "check.h"
__global__ void scale(int* v, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * k + 1;
}
static int callbacks = 0;
static void CUDART_CB on_done(void* data) { callbacks += *static_cast<int*>(data); }
int main() {
    const int n = 1 << 14, parts = 4, chunk = n / parts;
    int* host;
    CHECK(cudaMallocHost(&host, n * sizeof(int)));
    for (int i = 0; i < n; ++i) host[i] = i;
    int* dev;
    CHECK(cudaMalloc(&dev, n * sizeof(int)));
    cudaStream_t streams[parts];
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventRecord(start, streams[0]));
    int one = 1;
    for (int p = 0; p < parts; ++p) {
        int* h = host + p * chunk;
        int* d = dev + p * chunk;
        CHECK(cudaMemcpyAsync(d, h, chunk * sizeof(int), cudaMemcpyHostToDevice, streams[p]));
        scale<<<chunk / 128, 128, 0, streams[p]>>>(d, chunk, p + 2);
        CHECK(cudaMemcpyAsync(h, d, chunk * sizeof(int), cudaMemcpyDeviceToHost, streams[p]));
        CHECK(cudaLaunchHostFunc(streams[p], on_done, &one));
    }
    cudaEvent_t joined;
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    for (int p = 1; p < parts; ++p) {
        CHECK(cudaEventRecord(joined, streams[p]));
        CHECK(cudaStreamWaitEvent(streams[0], joined, 0));
    }
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaDeviceSynchronize());
    long sum = 0;
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        sum += host[i];
        wrong += host[i] != i * (i / chunk + 2) + 1;
    }
    std::printf("sum %ld, wrong %d, callbacks %d, elapsed %s\n", sum, wrong, callbacks,
                ms >= 0 ? "measured" : "missing");
    std::printf("query: %s\n", cudaGetErrorName(cudaStreamQuery(streams[1])));
    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(joined));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(dev));
    bool ok = wrong == 0 && callbacks == parts;
    std::printf("streams_events: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
