// Host memory that kernels and the host use at the same time, as CUDA programs use pinned and
// managed memory: a kernel waiting for a flag the host sets in pinned memory (and the host
// waiting for the kernel's answer there, before any synchronization), system-wide atomics on
// one counter from the host and the device at once, and a managed linked list whose nodes
// point to each other. Every wait is bounded, so a device working on a copy fails instead of
// hanging. Prints "zero_copy: ok".
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            printf("%s failed: %s (line %d)\n", #x, cudaGetErrorString(e), __LINE__);         \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

// Waits (bounded) for *go, then answers through *seen.
__global__ void wait_for_host(volatile int *go, volatile int *seen) {
    long long spins = 0;
    while (*go == 0 && spins < (1LL << 22)) ++spins;
    *seen = *go == 0 ? -1 : 1 + *go;
    __threadfence_system();
}

__global__ void count(int *counter, int times) {
    for (int i = 0; i < times; ++i) atomicAdd_system(counter, 1);
}

struct Node {
    int value;
    Node *next;
};

__global__ void walk(const Node *head, long long *sum, int *length) {
    long long s = 0;
    int n = 0;
    for (const Node *node = head; node != nullptr && n < 1000; node = node->next) {
        s += node->value;
        ++n;
    }
    *sum = s;
    *length = n;
}

// Waits up to two seconds for *flag to leave 0.
static int wait_host(volatile int *flag) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (*flag == 0 && std::chrono::steady_clock::now() < end) std::this_thread::yield();
    return *flag;
}

static int check_flag() {
    int *go, *seen;
    CHECK(cudaHostAlloc(&go, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaMallocHost(&seen, sizeof(int)));
    *go = 0;
    *seen = 0;
    wait_for_host<<<1, 1>>>(go, seen);
    CHECK(cudaGetLastError());
    *(volatile int *)go = 41;
    int answer = wait_host(seen);
    CHECK(cudaDeviceSynchronize());
    printf("flag: the kernel answered %d before synchronizing (want 42)\n", answer);
    CHECK(cudaFreeHost(go));
    CHECK(cudaFreeHost(seen));
    return answer != 42;
}

static int check_atomics() {
    const int blocks = 4, threads = 64, times = 50, host_adds = 20000;
    int *counter;
    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    *counter = 0;
    count<<<blocks, threads>>>(counter, times);
    CHECK(cudaGetLastError());
    for (int i = 0; i < host_adds; ++i)
        reinterpret_cast<std::atomic<int> *>(counter)->fetch_add(1);
    CHECK(cudaDeviceSynchronize());
    int want = blocks * threads * times + host_adds;
    printf("atomics: counter %d (want %d)\n", *counter, want);
    int bad = *counter != want;
    CHECK(cudaFree(counter));
    return bad;
}

static int check_list() {
    const int n = 20;
    Node *nodes[n];
    for (int i = 0; i < n; ++i) CHECK(cudaMallocManaged(&nodes[i], sizeof(Node)));
    for (int i = 0; i < n; ++i) *nodes[i] = {i * i, i + 1 < n ? nodes[i + 1] : nullptr};
    long long *sum;
    int *length;
    CHECK(cudaMallocManaged(&sum, sizeof *sum));
    CHECK(cudaMallocManaged(&length, sizeof *length));
    walk<<<1, 1>>>(nodes[0], sum, length);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long want = 0;
    for (int i = 0; i < n; ++i) want += i * i;
    printf("list: %d nodes, sum %lld (want %d, %lld)\n", *length, *sum, n, want);
    int bad = *length != n || *sum != want;
    for (int i = 0; i < n; ++i) CHECK(cudaFree(nodes[i]));
    CHECK(cudaFree(sum));
    CHECK(cudaFree(length));
    return bad;
}

int main() {
    int bad = check_flag() + check_atomics() + check_list();
    printf(bad ? "zero_copy: FAIL\n" : "zero_copy: ok\n");
    return bad != 0;
}
