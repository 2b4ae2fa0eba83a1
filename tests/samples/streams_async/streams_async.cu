// Asynchronous copies and kernels on several streams from pinned memory, ordered by events.
#include "../common/helpers.h"

__global__ void incrementKernel(int *data, int n, int by) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += by;
}

int main(int argc, char **argv) {
    const int nStreams = 4;
    int n = sizeArg(argc, argv, 1 << 22), chunk = n / nStreams;
    int *host, *dev;
    checkCudaErrors(cudaMallocHost(&host, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dev, n * sizeof(int)));
    for (int i = 0; i < n; ++i) host[i] = i;
    cudaStream_t streams[nStreams];
    cudaEvent_t copied[nStreams];
    for (int s = 0; s < nStreams; ++s) {
        checkCudaErrors(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        checkCudaErrors(cudaEventCreateWithFlags(&copied[s], cudaEventDisableTiming));
    }
    EventTimer timer;
    timer.start(streams[0]);
    for (int s = 0; s < nStreams; ++s) {
        int *h = host + s * chunk, *d = dev + s * chunk;
        checkCudaErrors(cudaMemcpyAsync(d, h, chunk * sizeof(int), cudaMemcpyHostToDevice, streams[s]));
        incrementKernel<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d, chunk, s + 1);
        checkCudaErrors(cudaEventRecord(copied[s], streams[s]));
    }
    // The next stream's second kernel waits for the previous stream's work.
    for (int s = 0; s < nStreams; ++s) {
        int next = (s + 1) % nStreams;
        checkCudaErrors(cudaStreamWaitEvent(streams[next], copied[s], 0));
        incrementKernel<<<(chunk + 255) / 256, 256, 0, streams[next]>>>(dev + s * chunk, chunk, 100);
        checkCudaErrors(cudaMemcpyAsync(host + s * chunk, dev + s * chunk, chunk * sizeof(int),
                                        cudaMemcpyDeviceToHost, streams[next]));
    }
    checkCudaErrors(cudaStreamSynchronize(streams[0]));
    float ms = timer.stop(streams[0]);
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= host[i] == i + i / chunk + 1 + 100;
    printf("streams: %d, chunk %d\n", nStreams, chunk);
    printf("time: %.3f ms\n", ms);
    for (int s = 0; s < nStreams; ++s) {
        checkCudaErrors(cudaStreamDestroy(streams[s]));
        checkCudaErrors(cudaEventDestroy(copied[s]));
    }
    checkCudaErrors(cudaFreeHost(host));
    checkCudaErrors(cudaFree(dev));
    return finish("streams_async", ok);
}
