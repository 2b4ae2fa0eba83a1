// Device management, errors, memory of every kind, __device__/__constant__/__managed__ globals with
// cudaMemcpyToSymbol, templates, streams with events and callbacks, and printf. Checks its own
// results and prints a final summary line.
#include <cstdio>
#include <cstdlib>
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

__constant__ float scale_factor;
__device__ int hits;
#ifdef __NVCC__  // clang 22 does not implement __managed__ variables
#define HAVE_MANAGED_VARIABLES 1
__managed__ int managed_total = 5;
#endif

template <typename T>
__global__ void scale(T *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * static_cast<T>(scale_factor);
        atomicAdd(&hits, 1);
    }
}

__global__ void greet(int value) {
    // One block prints: the order of two blocks' printf lines differs from run to run on a GPU.
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1)
        printf("hello from block %d, value %d\n", blockIdx.x, value);
}

#ifdef HAVE_MANAGED_VARIABLES
__global__ void accumulate(const int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&managed_total, data[i]);
}
#endif

__global__ void add_one(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

static void CUDART_CB on_done(void *user) { *static_cast<int *>(user) = 42; }

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    expect(count >= 1, "at least one device");
    CHECK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    expect(prop.warpSize == 32, "warp size 32");
    int version = 0;
    CHECK(cudaRuntimeGetVersion(&version));
    expect(version >= 13000, "runtime 13.0");

    // Device memory, __constant__ and __device__ globals, a template kernel.
    const int n = 1000;
    float host[n];
    for (int i = 0; i < n; i++) host[i] = (float)i;
    float *dev = nullptr;
    CHECK(cudaMalloc(&dev, n * sizeof(float)));
    CHECK(cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice));
    float factor = 2.5f;
    CHECK(cudaMemcpyToSymbol(scale_factor, &factor, sizeof factor));
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(hits, &zero, sizeof zero));
    scale<float><<<(n + 127) / 128, 128>>>(dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDefault));
    bool scaled = true;
    for (int i = 0; i < n; i++) scaled = scaled && host[i] == 2.5f * (float)i;
    expect(scaled, "scale<float> results");
    int counted = 0;
    CHECK(cudaMemcpyFromSymbol(&counted, hits, sizeof counted));
    expect(counted == n, "__device__ counter");

    // Memset, device-to-device and 2D copies.
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, 64 * sizeof(int)));
    CHECK(cudaMalloc(&b, 64 * sizeof(int)));
    CHECK(cudaMemset(a, 0, 64 * sizeof(int)));
    add_one<<<1, 64>>>(a, 64);
    CHECK(cudaMemcpy(b, a, 64 * sizeof(int), cudaMemcpyDeviceToDevice));
    int rows[4][8];
    CHECK(cudaMemcpy2D(rows, 8 * sizeof(int), b, 16 * sizeof(int), 8 * sizeof(int), 4,
                       cudaMemcpyDeviceToHost));
    expect(rows[3][7] == 1 && rows[0][0] == 1, "memset, D2D and 2D copies");

    // Pinned and managed memory used by kernels directly.
    int *pinned = nullptr, *managed = nullptr;
    CHECK(cudaMallocHost(&pinned, 32 * sizeof(int)));
    CHECK(cudaMallocManaged(&managed, 32 * sizeof(int)));
    for (int i = 0; i < 32; i++) pinned[i] = managed[i] = i;
    cudaMemLocation here = {cudaMemLocationTypeDevice, 0};
    CHECK(cudaMemPrefetchAsync(managed, 32 * sizeof(int), here, 0, 0));
    add_one<<<1, 32>>>(managed, 32);
    int *mapped = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&mapped, pinned, 0));
    add_one<<<1, 32>>>(mapped, 32);
    CHECK(cudaDeviceSynchronize());
    expect(managed[31] == 32 && pinned[31] == 32, "managed and pinned memory");
#ifdef HAVE_MANAGED_VARIABLES
    // A __managed__ variable: initial value, host write, kernel update, host read.
    expect(managed_total == 5, "__managed__ initial value");
    managed_total += 10;
    accumulate<<<1, 32>>>(managed, 32);  // adds 1 + 2 + ... + 32 = 528
    CHECK(cudaDeviceSynchronize());
    expect(managed_total == 543, "__managed__ variable");
#endif
    cudaPointerAttributes attributes;
    CHECK(cudaPointerGetAttributes(&attributes, a));
    expect(attributes.type == cudaMemoryTypeDevice, "device pointer attributes");
    CHECK(cudaPointerGetAttributes(&attributes, managed));
    expect(attributes.type == cudaMemoryTypeManaged, "managed pointer attributes");

    // Streams, events and a host callback.
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    add_one<<<1, 64, 0, stream>>>(a, 64);
    CHECK(cudaEventRecord(stop, stream));
    int flag = 0;
    CHECK(cudaLaunchHostFunc(stream, on_done, &flag));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    expect(ms >= 0.0f && flag == 42, "events and host function");
    CHECK(cudaMemcpyAsync(rows, a, 8 * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    expect(rows[0][7] == 2, "async copy after a stream launch");

    printf("greeting from the device:\n");  // printed before the kernel's lines
    greet<<<2, 32>>>(7);
    CHECK(cudaDeviceSynchronize());
    expect(cudaGetLastError() == cudaSuccess, "no error left");
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(managed));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(dev));
    printf("basics: %s\n", failures == 0 ? "ok" : "FAILED");
    return failures == 0 ? 0 : 1;
}
