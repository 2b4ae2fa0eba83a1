// Kernel faults (`faults assert|oob|misaligned|trap`: a failed device assert, a write past an
// allocation's end, an int read at an odd address, `trap`) come back as CUDA reports them, sticky
// (cudaErrorAssert, ...IllegalAddress, ...MisalignedAddress, ...LaunchFailure), printing each name.
// `faults freed` copies from a freed allocation with cudaMemcpyDefault: an error, not a crash,
// and not a sticky one.
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void check_positive(const int *values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(values[i] > 0);
}

__global__ void write_past_end(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i + n] = i;
}

__global__ void read_misaligned(int *data) {
    const int *words = reinterpret_cast<const int *>(reinterpret_cast<char *>(data) + 1);
    data[threadIdx.x + 1] = words[threadIdx.x];
}

__global__ void trap_once(int *data) {
    if (threadIdx.x == 3) __trap();
    data[threadIdx.x] = 1;
}

static int copy_from_freed() {
    int values[16] = {};
    int *dev = nullptr;
    if (cudaMalloc(&dev, sizeof values) != cudaSuccess || cudaFree(dev) != cudaSuccess) return 2;
    cudaError_t copied = cudaMemcpy(values, dev, sizeof values, cudaMemcpyDefault);
    cudaError_t after = cudaDeviceSynchronize();
    printf("copy from freed: %s\n", cudaGetErrorName(copied));
    printf("synchronize: %s\n", cudaGetErrorName(after));
    bool ok = copied != cudaSuccess && after == cudaSuccess;
    printf("faults freed: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "freed") == 0) return copy_from_freed();
    const char *mode = argc > 1 ? argv[1] : "assert";
    bool oob = strcmp(mode, "oob") == 0;
    bool misaligned = strcmp(mode, "misaligned") == 0;
    bool trap = strcmp(mode, "trap") == 0;
    int values[64];
    for (int i = 0; i < 64; i++) values[i] = i == 37 ? 0 : 1;
    int *dev = nullptr;
    if (cudaMalloc(&dev, sizeof values) != cudaSuccess) return 2;
    cudaMemcpy(dev, values, sizeof values, cudaMemcpyHostToDevice);
    if (oob) {
        write_past_end<<<1, 64>>>(dev, 1 << 20);
    } else if (misaligned) {
        read_misaligned<<<1, 32>>>(dev);
    } else if (trap) {
        trap_once<<<1, 32>>>(dev);
    } else {
        check_positive<<<2, 32>>>(dev, 64);
    }
    cudaError_t launched = cudaGetLastError();
    cudaError_t synced = cudaDeviceSynchronize();
    cudaError_t later = cudaMemcpy(values, dev, sizeof values, cudaMemcpyDeviceToHost);
    printf("launch: %s\n", cudaGetErrorName(launched));
    printf("synchronize: %s\n", cudaGetErrorName(synced));
    printf("later call: %s\n", cudaGetErrorName(later));
    cudaError_t expected = oob ? cudaErrorIllegalAddress
                           : misaligned ? cudaErrorMisalignedAddress
                           : trap ? cudaErrorLaunchFailure
                                  : cudaErrorAssert;
    bool ok = launched == cudaSuccess && synced == expected && later == expected;
    printf("faults %s: %s\n", mode, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
