// Pageable cudaMemcpy bandwidth, 64 MiB each way, median of 9 after 2 warm-ups. Build with nvcc
// -cudart shared; run natively and under `chevron exec --device cuda` in the same call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
int main() {
    const size_t n = 64u << 20;
    char *host = (char *)malloc(n), *back = (char *)malloc(n);
    memset(host, 1, n); memset(back, 0, n);
    void *dev; cudaMalloc(&dev, n);
    for (int dir = 0; dir < 2; ++dir) {
        std::vector<double> t;
        for (int i = 0; i < 11; ++i) {
            auto a = std::chrono::steady_clock::now();
            if (dir == 0) cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice);
            else cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost);
            auto b = std::chrono::steady_clock::now();
            if (i >= 2) t.push_back(std::chrono::duration<double>(b - a).count());
        }
        std::sort(t.begin(), t.end());
        printf("%s %.2f GB/s\n", dir == 0 ? "pageable H2D" : "pageable D2H", n / t[t.size() / 2] / 1e9);
    }
    printf("check %d\n", back[n - 1]);
    return 0;
}
