// Several translation units, each with its own fatbin, and the orderings of CUDA's streams:
// the legacy default stream against a blocking stream, the per-thread default stream, a
// non-blocking stream waiting on an event, a stream callback, and cudaLaunchKernelEx. Prints a
// final line.
#include <cstdio>
#include <cuda_runtime.h>

void launch_axpy(int a, const int *x, int *y, int n, cudaStream_t stream);
void launch_axpy(double a, const double *x, double *y, int n, cudaStream_t stream);

__global__ void fill(int *data, int value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = value;
}

static void CUDART_CB record_status(cudaStream_t, cudaError_t status, void *user) {
    *static_cast<int *>(user) = status == cudaSuccess ? 1 : -1;
}

int main() {
    const int n = 300;
    int *x = nullptr, *y = nullptr;
    double *dx = nullptr, *dy = nullptr;
    cudaMalloc(&x, n * sizeof(int));
    cudaMalloc(&y, n * sizeof(int));
    cudaMalloc(&dx, n * sizeof(double));
    cudaMalloc(&dy, n * sizeof(double));

    // Legacy stream, then a blocking stream: the blocking stream sees the fills.
    cudaStream_t blocking;
    cudaStreamCreate(&blocking);
    fill<<<(n + 127) / 128, 128>>>(x, 3, n);
    fill<<<(n + 127) / 128, 128>>>(y, 1, n);
    launch_axpy(2, x, y, n, blocking);  // y = 2*3 + 1 = 7
    // The legacy stream waits for the blocking stream before this copy.
    int hy[n];
    cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);

    // The extensible launch with a cluster-dimension attribute (clusters of one block).
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 127) / 128);
    config.blockDim = dim3(128);
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = 1;
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
    int *z = nullptr;
    cudaMalloc(&z, n * sizeof(int));
    bool launched_ex = cudaLaunchKernelEx(&config, fill, z, 9, n) == cudaSuccess;
    int hz[n];
    cudaMemcpy(hz, z, sizeof hz, cudaMemcpyDeviceToHost);
    cudaFree(z);

    // A non-blocking stream ordered by an event recorded on the per-thread stream.
    cudaStream_t other;
    cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
    double ones[n];
    for (int i = 0; i < n; i++) ones[i] = 1.0;
    cudaMemcpyAsync(dx, ones, sizeof ones, cudaMemcpyHostToDevice, cudaStreamPerThread);
    cudaMemcpyAsync(dy, ones, sizeof ones, cudaMemcpyHostToDevice, cudaStreamPerThread);
    cudaEvent_t copied;
    cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
    cudaEventRecord(copied, cudaStreamPerThread);
    cudaStreamWaitEvent(other, copied, 0);
    launch_axpy(0.5, dx, dy, n, other);  // dy = 1.5
    int callback = 0;
    cudaStreamAddCallback(other, record_status, &callback, 0);
    double hdy[n];
    cudaMemcpyAsync(hdy, dy, sizeof hdy, cudaMemcpyDeviceToHost, other);
    cudaStreamSynchronize(other);
    bool ok = cudaStreamQuery(other) == cudaSuccess && callback == 1;
    ok = ok && launched_ex;
    for (int i = 0; i < n; i++) ok = ok && hy[i] == 7 && hdy[i] == 1.5 && hz[i] == 9;
    ok = ok && cudaGetLastError() == cudaSuccess;
    cudaEventDestroy(copied);
    cudaStreamDestroy(other);
    cudaStreamDestroy(blocking);
    cudaFree(x);
    cudaFree(y);
    cudaFree(dx);
    cudaFree(dy);
    printf("units: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
