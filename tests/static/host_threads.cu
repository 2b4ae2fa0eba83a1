// Host threads sharing the device: each launches on its own stream and checks its own result;
// device printf from one kernel (one block, so that its output's order is fixed: blocks print in
// any order, on a GPU as on the CPU device).
#include <cstdio>
#include <thread>
#include <vector>
#include "check.h"
__global__ void fill(int* v, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = value + i;
}
__global__ void greet(int id) {
    if (threadIdx.x == 0) printf("hello from block %d of thread %d\n", blockIdx.x, id);
}
int main() {
    const int threads = 4, n = 4096;
    std::vector<int> ok(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([t, &ok] {
            cudaStream_t stream;
            CHECK(cudaStreamCreate(&stream));
            int* dev;
            CHECK(cudaMalloc(&dev, n * sizeof(int)));
            std::vector<int> host(n);
            for (int round = 0; round < 5; ++round) {
                fill<<<n / 256, 256, 0, stream>>>(dev, n, t * 1000 + round);
                CHECK(cudaMemcpyAsync(host.data(), dev, n * sizeof(int), cudaMemcpyDeviceToHost,
                                      stream));
                CHECK(cudaStreamSynchronize(stream));
                int good = 1;
                for (int i = 0; i < n; ++i) good &= host[i] == t * 1000 + round + i;
                ok[t] += good;
            }
            CHECK(cudaFree(dev));
            CHECK(cudaStreamDestroy(stream));
        });
    for (auto& th : pool) th.join();
    greet<<<1, 32>>>(7);
    CHECK(cudaDeviceSynchronize());
    int good = 0;
    for (int v : ok) good += v;
    std::printf("rounds correct: %d of %d\n", good, threads * 5);
    std::printf("host_threads: %s\n", good == threads * 5 ? "ok" : "FAILED");
    return good != threads * 5;
}
