// SHOC's Triad (a = b + s * c) over growing block sizes, the arrays split into chunks pipelined
// across two streams (copy in, kernel, copy out) from pinned memory, polled with cudaEventQuery
// and cudaStreamQuery.
#include <vector>
#include "../common/helpers.h"

__global__ void triad(const float *b, const float *c, float *a, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
    int maxKiB = sizeArg(argc, argv, 16384);
    const float scalar = 1.75f;
    int maxN = maxKiB * 1024 / sizeof(float);
    float *hB, *hC, *hA;
    checkCudaErrors(cudaMallocHost(&hB, maxN * sizeof(float)));
    checkCudaErrors(cudaMallocHost(&hC, maxN * sizeof(float)));
    checkCudaErrors(cudaMallocHost(&hA, maxN * sizeof(float)));
    for (int i = 0; i < maxN; ++i) { hB[i] = (float)(i % 100); hC[i] = (float)(i % 37); }
    float *dB, *dC, *dA;
    checkCudaErrors(cudaMalloc(&dB, maxN * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dC, maxN * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dA, maxN * sizeof(float)));
    cudaStream_t streams[2];
    for (auto &s : streams) checkCudaErrors(cudaStreamCreate(&s));
    cudaEvent_t done;
    checkCudaErrors(cudaEventCreate(&done));
    bool ok = true;
    for (int kib = 64; kib <= maxKiB; kib *= 4) {
        int chunk = kib * 1024 / sizeof(float), chunks = maxN / chunk;
        EventTimer timer;
        timer.start();
        for (int k = 0; k < chunks; ++k) {
            cudaStream_t s = streams[k % 2];
            size_t off = (size_t)k * chunk, bytes = chunk * sizeof(float);
            checkCudaErrors(cudaMemcpyAsync(dB + off, hB + off, bytes, cudaMemcpyHostToDevice, s));
            checkCudaErrors(cudaMemcpyAsync(dC + off, hC + off, bytes, cudaMemcpyHostToDevice, s));
            triad<<<(chunk + 127) / 128, 128, 0, s>>>(dB + off, dC + off, dA + off, scalar, chunk);
            checkCudaErrors(cudaMemcpyAsync(hA + off, dA + off, bytes, cudaMemcpyDeviceToHost, s));
        }
        checkCudaErrors(cudaEventRecord(done, streams[1]));
        checkCudaErrors(cudaStreamWaitEvent(streams[0], done, 0));
        checkCudaErrors(cudaEventRecord(done, streams[0]));
        cudaError_t state;
        while ((state = cudaEventQuery(done)) == cudaErrorNotReady) {}
        checkCudaErrors(state);
        for (auto &s : streams) checkCudaErrors(cudaStreamQuery(s));
        float ms = timer.stop();
        bool good = true;
        for (int i = 0; i < chunks * chunk; ++i) good &= hA[i] == hB[i] + scalar * hC[i];
        printf("block %5d KiB x %4d: %s\n", kib, chunks, good ? "ok" : "WRONG");
        printf("  time: %.3f ms\n", ms);
        ok &= good;
    }
    checkCudaErrors(cudaEventDestroy(done));
    for (auto &s : streams) checkCudaErrors(cudaStreamDestroy(s));
    checkCudaErrors(cudaFreeHost(hA));
    checkCudaErrors(cudaFreeHost(hB));
    checkCudaErrors(cudaFreeHost(hC));
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dB));
    checkCudaErrors(cudaFree(dC));
    return finish("shoc_triad", ok);
}
