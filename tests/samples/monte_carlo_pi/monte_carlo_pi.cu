// Monte-Carlo estimate of pi with a hand-written xorshift generator per thread; the device's
// hit count must equal the host's replay of the same streams exactly.
#include <vector>
#include "../common/helpers.h"

__host__ __device__ inline unsigned xorshift32(unsigned &s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

__host__ __device__ inline unsigned countHits(unsigned seed, int samples) {
    unsigned s = seed * 2654435761u + 1u, hits = 0;
    for (int k = 0; k < samples; ++k) {
        // Points on a 2^24 x 2^24 lattice, tested in exact integer arithmetic.
        unsigned long long x = xorshift32(s) >> 8, y = xorshift32(s) >> 8;
        hits += x * x + y * y <= (1ull << 48);
    }
    return hits;
}

__global__ void monteCarlo(unsigned long long *total, int samplesPerThread) {
    __shared__ unsigned blockHits;
    if (threadIdx.x == 0) blockHits = 0;
    __syncthreads();
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&blockHits, countHits(tid, samplesPerThread));
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)blockHits);
}

int main(int argc, char **argv) {
    int samplesPerThread = sizeArg(argc, argv, 256);
    const int blocks = 256, threads = 256;
    unsigned long long *total;
    checkCudaErrors(cudaMallocManaged(&total, sizeof(*total)));
    *total = 0;
    EventTimer timer;
    timer.start();
    monteCarlo<<<blocks, threads>>>(total, samplesPerThread);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    unsigned long long expect = 0;
    for (unsigned t = 0; t < blocks * threads; ++t) expect += countHits(t, samplesPerThread);
    double n = (double)blocks * threads * samplesPerThread;
    printf("pi ~ %.6f from %.0f samples (host replay %s)\n", 4.0 * *total / n, n, *total == expect ? "agrees" : "DIFFERS");
    printf("time: %.3f ms\n", ms);
    bool ok = *total == expect && fabs(4.0 * *total / n - 3.14159265) < 0.01;
    checkCudaErrors(cudaFree(total));
    return finish("monte_carlo_pi", ok);
}
