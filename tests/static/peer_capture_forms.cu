// Runtime calls a statically linked runtime serves through driver functions of its own:
// cudaDeviceCanAccessPeer / cudaDeviceEnablePeerAccess / cudaDeviceDisablePeerAccess
// (cuDeviceCanAccessPeer, cuCtxEnablePeerAccess, cuCtxDisablePeerAccess), cudaEventRecordWithFlags
// (cuEventRecordWithFlags), cudaStreamAttachMemAsync (cuStreamAttachMemAsync) and
// cudaThreadExchangeStreamCaptureMode (cuThreadExchangeStreamCaptureMode), in the order a
// multi-GPU or managed-memory program makes them. Prints each answer and
// "peer_capture_forms: ok".
#include <cstdio>

#include "check.h"

__global__ void fill(int *x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    // Every pair of devices: whether one can address the other's memory.
    for (int a = 0; a < count; ++a)
        for (int b = 0; b < count; ++b) {
            if (a == b) continue;
            int can = -1;
            CHECK(cudaDeviceCanAccessPeer(&can, a, b));
            printf("can %d access %d: %d\n", a, b, can);
        }
    int can = -1;
    cudaError_t err = cudaDeviceCanAccessPeer(&can, 0, count);
    printf("cudaDeviceCanAccessPeer(0, %d): %s\n", count == 1 ? 1 : count, cudaGetErrorName(err));
    printf("cudaDeviceDisablePeerAccess(0): %s\n", cudaGetErrorName(cudaDeviceDisablePeerAccess(0)));
    cudaGetLastError();

    // An event recorded with flags orders a second stream after the first.
    const int n = 1 << 12;
    int *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    cudaStream_t first, second;
    CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    CHECK(cudaStreamAttachMemAsync(first, x, 0, cudaMemAttachSingle));
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    fill<<<n / 256, 256, 0, first>>>(x, n, 7);
    CHECK(cudaEventRecordWithFlags(done, first, cudaEventRecordDefault));
    CHECK(cudaStreamWaitEvent(second, done, 0));
    fill<<<n / 256, 256, 0, second>>>(x, n / 2, 1000);
    CHECK(cudaStreamAttachMemAsync(second, x, 0, cudaMemAttachGlobal));
    CHECK(cudaStreamSynchronize(second));
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += x[i];
    printf("sum after both streams: %lld\n", sum);

    // The thread's capture mode, swapped and restored.
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("previous capture mode: %d\n", int(mode));
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    printf("mode set before: %d\n", int(mode));

    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(first));
    CHECK(cudaStreamDestroy(second));
    CHECK(cudaFree(x));
    long long want = 0;
    for (int i = 0; i < n; ++i) want += i < n / 2 ? 1000 + i : 7 + i;
    printf("peer_capture_forms: %s\n", sum == want ? "ok" : "FAILED");
    return sum == want ? 0 : 1;
}
