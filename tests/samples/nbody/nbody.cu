// All-pairs n-body integration step with shared-memory tiles of body positions (float4 with
// mass in w), checked against a double-precision host step.
#include <vector>
#include "../common/helpers.h"

constexpr float SOFTENING = 0.01f;

__device__ float3 interact(float4 me, float4 other, float3 acc) {
    float3 r = make_float3(other.x - me.x, other.y - me.y, other.z - me.z);
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
    float inv = rsqrtf(dist2);
    float s = other.w * inv * inv * inv;
    acc.x += r.x * s;
    acc.y += r.y * s;
    acc.z += r.z * s;
    return acc;
}

template <int TileSize>
__global__ void integrateBodies(float4 *newPos, float4 *vel, const float4 *oldPos, float dt, int n) {
    __shared__ float4 tile[TileSize];
    int i = blockIdx.x * TileSize + threadIdx.x;
    float4 me = oldPos[i];
    float3 acc = make_float3(0, 0, 0);
    for (int start = 0; start < n; start += TileSize) {
        tile[threadIdx.x] = oldPos[start + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < TileSize; ++k) acc = interact(me, tile[k], acc);
        __syncthreads();
    }
    float4 v = vel[i];
    v.x += acc.x * dt;
    v.y += acc.y * dt;
    v.z += acc.z * dt;
    me.x += v.x * dt;
    me.y += v.y * dt;
    me.z += v.z * dt;
    newPos[i] = me;
    vel[i] = v;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 4096), steps = 2;
    const int tile = 256;
    float dt = 0.01f;
    std::vector<float4> pos(n), vel(n, make_float4(0, 0, 0, 0));
    Lcg rng(42);
    for (int i = 0; i < n; ++i) pos[i] = make_float4(rng.uniform() * 2 - 1, rng.uniform() * 2 - 1, rng.uniform() * 2 - 1, 0.5f + rng.uniform());
    float4 *dPos[2], *dVel;
    for (auto &p : dPos) checkCudaErrors(cudaMalloc(&p, n * sizeof(float4)));
    checkCudaErrors(cudaMalloc(&dVel, n * sizeof(float4)));
    checkCudaErrors(cudaMemcpy(dPos[0], pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dVel, vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    for (int s = 0; s < steps; ++s)
        integrateBodies<tile><<<n / tile, tile>>>(dPos[(s + 1) % 2], dVel, dPos[s % 2], dt, n);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    std::vector<float4> got(n);
    checkCudaErrors(cudaMemcpy(got.data(), dPos[steps % 2], n * sizeof(float4), cudaMemcpyDeviceToHost));
    // Host reference in double precision.
    std::vector<double> p(4 * n), v(3 * n, 0.0), np(4 * n);
    for (int i = 0; i < n; ++i) { p[4 * i] = pos[i].x; p[4 * i + 1] = pos[i].y; p[4 * i + 2] = pos[i].z; p[4 * i + 3] = pos[i].w; }
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < n; ++i) {
            double a[3] = {0, 0, 0};
            for (int j = 0; j < n; ++j) {
                double r[3] = {p[4 * j] - p[4 * i], p[4 * j + 1] - p[4 * i + 1], p[4 * j + 2] - p[4 * i + 2]};
                double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + SOFTENING;
                double sc = p[4 * j + 3] / (d2 * sqrt(d2));
                for (int k = 0; k < 3; ++k) a[k] += r[k] * sc;
            }
            for (int k = 0; k < 3; ++k) {
                v[3 * i + k] += a[k] * dt;
                np[4 * i + k] = p[4 * i + k] + v[3 * i + k] * dt;
            }
            np[4 * i + 3] = p[4 * i + 3];
        }
        p.swap(np);
    }
    double maxErr = 0;
    for (int i = 0; i < n; ++i) {
        maxErr = fmax(maxErr, fabs(got[i].x - p[4 * i]));
        maxErr = fmax(maxErr, fabs(got[i].y - p[4 * i + 1]));
        maxErr = fmax(maxErr, fabs(got[i].z - p[4 * i + 2]));
    }
    printf("%d bodies, %d steps: max position error %s\n", n, steps, maxErr < 1e-3 ? "< 1e-3" : "TOO LARGE");
    printf("time: %.3f ms, %.2f billion interactions/s\n", ms, (double)n * n * steps / (ms * 1e6));
    for (auto &q : dPos) checkCudaErrors(cudaFree(q));
    checkCudaErrors(cudaFree(dVel));
    return finish("nbody", maxErr < 1e-3);
}
