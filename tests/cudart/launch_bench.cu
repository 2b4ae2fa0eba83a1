// The cost of <<<>>> as the program sees it: bursts of 256 launches of an empty kernel and of
// a 4-argument kernel, timing only the enqueue (the host time of the 256 launches; the stream
// is drained between bursts), and __cudaPushCallConfiguration + __cudaPopCallConfiguration
// pairs. Prints medians per launch and per pair. Usage: launch_bench [BURSTS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

extern "C" unsigned __cudaPushCallConfiguration(dim3, dim3, size_t, cudaStream_t);
extern "C" cudaError_t __cudaPopCallConfiguration(dim3 *, dim3 *, size_t *, void *);

__global__ void empty() {}
__global__ void four(float *a, const float *b, float c, int n) {
    if (threadIdx.x == 0 && blockIdx.x == 0 && n < 0) a[0] = b[0] * c;
}

using Clock = std::chrono::steady_clock;

static double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <typename Launch>
static double burst_median_us(int bursts, Launch launch) {
    std::vector<double> per_launch;
    for (int b = 0; b < bursts; b++) {
        auto start = Clock::now();
        for (int i = 0; i < 256; i++) launch();
        auto end = Clock::now();
        cudaDeviceSynchronize();
        per_launch.push_back(std::chrono::duration<double, std::micro>(end - start).count() / 256);
    }
    return median(per_launch);
}

int main(int argc, char **argv) {
    int bursts = argc > 1 ? atoi(argv[1]) : 50;
    float *a = nullptr, *b = nullptr;
    cudaMalloc(&a, 64);
    cudaMalloc(&b, 64);
    empty<<<1, 32>>>();  // loads the module
    four<<<1, 32>>>(a, b, 2.0f, 1);
    cudaDeviceSynchronize();
    double empty_us = burst_median_us(bursts, [] { empty<<<1, 32>>>(); });
    double four_us = burst_median_us(bursts, [&] { four<<<1, 32>>>(a, b, 2.0f, 16); });

    // Wall time, and the thread's CPU time (which a loaded machine does not inflate).
    const int pairs = 1000000;
    std::vector<double> pair_ns, pair_cpu_ns;
    for (int round = 0; round < 5; round++) {
        dim3 grid, block;
        size_t shared;
        cudaStream_t stream;
        timespec cpu_start, cpu_end;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
        auto start = Clock::now();
        for (int i = 0; i < pairs; i++) {
            __cudaPushCallConfiguration(dim3(i & 7), dim3(32), 0, nullptr);
            __cudaPopCallConfiguration(&grid, &block, &shared, &stream);
        }
        auto end = Clock::now();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_end);
        pair_ns.push_back(std::chrono::duration<double, std::nano>(end - start).count() / pairs);
        double cpu = (cpu_end.tv_sec - cpu_start.tv_sec) * 1e9 + (cpu_end.tv_nsec - cpu_start.tv_nsec);
        pair_cpu_ns.push_back(cpu / pairs);
    }
    cudaError_t err = cudaGetLastError();
    printf("enqueue empty kernel: %.3f us (median of %d bursts of 256)\n", empty_us, bursts);
    printf("enqueue 4-argument kernel: %.3f us\n", four_us);
    printf("push+pop pair: %.1f ns (thread CPU time %.1f ns)\n", median(pair_ns), median(pair_cpu_ns));
    printf("launch_bench: %s\n", err == cudaSuccess ? "ok" : cudaGetErrorName(err));
    cudaFree(a);
    cudaFree(b);
    return err == cudaSuccess ? 0 : 1;
}
