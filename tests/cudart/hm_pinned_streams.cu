// Pinned, managed and registered host memory as streams programs use them: pinned buffers copied
// asynchronously on several streams around a kernel (copy/compute overlap on GPUs), a linked
// list built in managed memory and walked by a kernel (pointers inside the data), a kernel
// writing registered memory in place. Prints "hm_pinned_streams: ok". With an argument
// `bench`, also prints the pinned host-to-device and device-to-host bandwidth in GB/s.
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            printf("%s failed: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__);         \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

__global__ void square_plus(const int *in, int *out, int n, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] + add;
}

struct Node {
    int value;
    Node *next;
};

__global__ void sum_list(const Node *head, long long *sum) {
    long long s = 0;
    for (const Node *n = head; n != nullptr; n = n->next) s += n->value;
    *sum = s;
}

__global__ void bump(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 7;
}

static int check_streams() {
    const int streams = 4, chunk = 1 << 16, n = streams * chunk;
    int *h_in, *h_out, *d_in, *d_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(int)));
    CHECK(cudaHostAlloc(&h_out, n * sizeof(int), cudaHostAllocPortable));
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    for (int i = 0; i < n; ++i) h_in[i] = i % 1000;
    memset(h_out, 0, n * sizeof(int));
    cudaStream_t s[streams];
    for (int k = 0; k < streams; ++k) CHECK(cudaStreamCreate(&s[k]));
    for (int k = 0; k < streams; ++k) {
        int at = k * chunk;
        CHECK(cudaMemcpyAsync(d_in + at, h_in + at, chunk * sizeof(int), cudaMemcpyHostToDevice, s[k]));
        square_plus<<<chunk / 256, 256, 0, s[k]>>>(d_in + at, d_out + at, chunk, k);
        CHECK(cudaMemcpyAsync(h_out + at, d_out + at, chunk * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        int v = i % 1000;
        bad += h_out[i] != v * v + i / chunk;
    }
    for (int k = 0; k < streams; ++k) CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    printf("pinned streams: %d of %d wrong\n", bad, n);
    return bad;
}

static int check_managed_list() {
    const int count = 100;
    Node *nodes;
    long long *sum;
    CHECK(cudaMallocManaged(&nodes, count * sizeof(Node)));
    CHECK(cudaMallocManaged(&sum, sizeof(long long)));
    // Linked backwards: every pointer is a managed address stored in managed data.
    for (int i = 0; i < count; ++i) {
        nodes[i].value = i + 1;
        nodes[i].next = i > 0 ? &nodes[i - 1] : nullptr;
    }
    *sum = -1;
    sum_list<<<1, 1>>>(&nodes[count - 1], sum);
    CHECK(cudaDeviceSynchronize());
    long long expected = (long long)count * (count + 1) / 2;
    int bad = *sum != expected;
    printf("managed list: sum %lld (expected %lld)\n", *sum, expected);
    CHECK(cudaFree(nodes));
    CHECK(cudaFree(sum));
    return bad;
}

static int check_registered() {
    const int n = 4096;
    int *data = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) data[i] = i;
    CHECK(cudaHostRegister(data, n * sizeof(int), cudaHostRegisterMapped));
    int *device_view;
    CHECK(cudaHostGetDevicePointer((void **)&device_view, data, 0));
    bump<<<n / 256, 256>>>(device_view, n);
    CHECK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += data[i] != i + 7;
    CHECK(cudaHostUnregister(data));
    free(data);
    printf("registered in place: %d of %d wrong\n", bad, n);
    return bad;
}

static void bench() {
    const size_t bytes = 256u << 20;
    void *pinned, *device;
    CHECK(cudaMallocHost(&pinned, bytes));
    CHECK(cudaMalloc(&device, bytes));
    memset(pinned, 1, bytes);
    CHECK(cudaMemcpy(device, pinned, bytes, cudaMemcpyHostToDevice));
    for (int dir = 0; dir < 2; ++dir) {
        double best = 1e30;
        for (int rep = 0; rep < 5; ++rep) {
            auto start = std::chrono::steady_clock::now();
            if (dir == 0) CHECK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice));
            else CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost));
            CHECK(cudaStreamSynchronize(0));
            std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
            if (ms.count() < best) best = ms.count();
        }
        printf("bench %s GB/s %.2f\n", dir == 0 ? "h2d" : "d2h", bytes / (best * 1e6));
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(device));
}

int main(int argc, char **argv) {
    int bad = check_streams() + check_managed_list() + check_registered();
    if (argc > 1 && strcmp(argv[1], "bench") == 0) bench();
    printf(bad ? "hm_pinned_streams: FAIL\n" : "hm_pinned_streams: ok\n");
    return bad ? 1 : 0;
}
