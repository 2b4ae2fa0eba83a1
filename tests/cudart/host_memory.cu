// Host memory kernels address: registered memory reached through a pointer inside a by-value
// struct parameter (the layout of MLIR's 1-D memref descriptor, 40 bytes), pinned memory passed
// directly and inside a struct, and managed memory. Prints "host_memory: ok".
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            printf("%s failed: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__);         \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

template <typename T>
struct MemRef1D {
    T *allocated;
    T *aligned;
    int64_t offset;
    int64_t sizes[1];
    int64_t strides[1];
};
static_assert(sizeof(MemRef1D<float>) == 40, "memref descriptor layout");

__global__ void scale(MemRef1D<float> m, float factor) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < m.sizes[0]) m.aligned[m.offset + i * m.strides[0]] *= factor;
}

struct Pair {
    int *in;
    int *out;
    int n;
};

__global__ void copy_plus_one(Pair p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.out[i] = p.in[i] + 1;
}

static int check_registered() {
    const int n = 1000;
    float *host = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) host[i] = (float)i;
    CHECK(cudaHostRegister(host, n * sizeof(float), cudaHostRegisterDefault));
    MemRef1D<float> m = {host, host, 0, {n / 2}, {2}};
    scale<<<(n / 2 + 127) / 128, 128>>>(m, 3.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += host[i] != (i % 2 == 0 ? 3.0f * i : (float)i);
    CHECK(cudaHostUnregister(host));
    free(host);
    printf("registered memref: %d of %d wrong\n", bad, n);
    return bad;
}

static int check_pinned() {
    const int n = 300;
    int *in, *out;
    CHECK(cudaMallocHost(&in, n * sizeof(int)));
    CHECK(cudaHostAlloc(&out, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; ++i) in[i] = 7 * i, out[i] = -1;
    Pair p = {in, out, n};
    copy_plus_one<<<(n + 63) / 64, 64>>>(p);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += out[i] != 7 * i + 1;
    CHECK(cudaFreeHost(in));
    CHECK(cudaFreeHost(out));
    printf("pinned pair: %d of %d wrong\n", bad, n);
    return bad;
}

static int check_managed() {
    const int n = 256;
    MemRef1D<float> *m;
    float *data;
    CHECK(cudaMallocManaged(&m, sizeof *m));
    CHECK(cudaMallocManaged(&data, n * sizeof(float)));
    for (int i = 0; i < n; ++i) data[i] = 1.0f + i;
    *m = {data, data, 0, {n}, {1}};
    scale<<<2, 128>>>(*m, 0.5f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += data[i] != 0.5f * (1.0f + i);
    CHECK(cudaFree(data));
    CHECK(cudaFree(m));
    printf("managed memref: %d of %d wrong\n", bad, n);
    return bad;
}

int main() {
    int bad = check_registered() + check_pinned() + check_managed();
    printf(bad ? "host_memory: FAIL\n" : "host_memory: ok\n");
    return bad != 0;
}
