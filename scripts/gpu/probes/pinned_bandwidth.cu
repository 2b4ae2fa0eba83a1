// Pinned cudaMemcpyAsync bandwidth, 256 MiB each way, best and median of 7 after 2 warm-ups.
// Build with nvcc -cudart shared; run natively and under `chevron exec --device cuda` in the
// same call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
int main() {
    const size_t n = 256u << 20;
    char *host;
    void *dev;
    cudaStream_t stream;
    if (cudaMallocHost(&host, n) != cudaSuccess || cudaMalloc(&dev, n) != cudaSuccess ||
        cudaStreamCreate(&stream) != cudaSuccess) {
        printf("setup failed\n");
        return 1;
    }
    for (size_t i = 0; i < n; i += 4096) host[i] = 1;
    for (int dir = 0; dir < 2; ++dir) {
        std::vector<double> t;
        for (int i = 0; i < 9; ++i) {
            auto a = std::chrono::steady_clock::now();
            cudaError_t e = dir == 0 ? cudaMemcpyAsync(dev, host, n, cudaMemcpyHostToDevice, stream)
                                     : cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, stream);
            if (e != cudaSuccess || cudaStreamSynchronize(stream) != cudaSuccess) {
                printf("copy failed\n");
                return 1;
            }
            auto b = std::chrono::steady_clock::now();
            if (i >= 2) t.push_back(std::chrono::duration<double>(b - a).count());
        }
        std::sort(t.begin(), t.end());
        printf("pinned %s best %.2f GB/s median %.2f GB/s\n", dir == 0 ? "H2D" : "D2H",
               n / t.front() / 1e9, n / t[t.size() / 2] / 1e9);
    }
    return 0;
}
