// The small kernels one time step of graph_replay is made of, and their host twins: a
// particle system's state advanced by forces, a fork into two independent updates, a join.
#pragma once
#include <cuda_runtime.h>

constexpr int PARTICLES = 1024;

struct State {
    int position[PARTICLES];
    int velocity[PARTICLES];
    unsigned energy[PARTICLES];
    unsigned long long steps;
};

__host__ __device__ inline int force(int x, int k) { return -(x >> 4) + (k & 7) - 3; }

__host__ __device__ inline void accelerate(State &s, int i, int k) {
    s.velocity[i] += force(s.position[i], k + i);
}
__host__ __device__ inline void move(State &s, int i) { s.position[i] += s.velocity[i] >> 2; }
__host__ __device__ inline void damp(State &s, int i) { s.velocity[i] -= s.velocity[i] >> 5; }
__host__ __device__ inline void account(State &s, int i) {
    s.energy[i] = s.energy[i] * 31u + (unsigned)(s.velocity[i] * s.velocity[i]);
}

__global__ void accelerateKernel(State *s, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < PARTICLES) accelerate(*s, i, k);
}
__global__ void moveKernel(State *s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < PARTICLES) move(*s, i);
}
__global__ void dampKernel(State *s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < PARTICLES) damp(*s, i);
}
__global__ void accountKernel(State *s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < PARTICLES) account(*s, i);
}
__global__ void countStep(State *s) {
    if (blockIdx.x == 0 && threadIdx.x == 0) s->steps++;
}
