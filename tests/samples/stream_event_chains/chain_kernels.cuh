// The tiny kernels of stream_event_chains and their host twins: a step that folds in the value
// the previous stream produced in the same round, a mixing step, and a final checksum.
#pragma once
#include <cuda_runtime.h>

constexpr int WIDTH = 64;  // values per stream and round: one block of 64 threads

__host__ __device__ inline unsigned mix(unsigned x, unsigned salt) {
    x ^= salt;
    x *= 0x9e3779b1u;
    return x ^ (x >> 15);
}

// out = previous * 3 + neighbour (the previous stream's value of this round, or the round).
__global__ void foldStep(unsigned *out, const unsigned *previous, const unsigned *neighbour, unsigned round) {
    int i = threadIdx.x;
    out[i] = previous[i] * 3u + (neighbour ? neighbour[i] : round);
}

__global__ void mixStep(unsigned *values, unsigned salt) {
    int i = threadIdx.x;
    values[i] = mix(values[i], salt + i);
}

// One block: the sum of every stream's last round, reduced in shared memory.
__global__ void checksum(const unsigned *const *lasts, int streams, unsigned long long *result) {
    __shared__ unsigned long long partial[WIDTH];
    unsigned long long sum = 0;
    for (int s = 0; s < streams; ++s) sum += lasts[s][threadIdx.x];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int stride = WIDTH / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = partial[0];
}
