// The fused stream-and-collide kernel: each fluid cell pulls its nine distributions from its
// neighbours (periodic in x, bounce-back from solid cells), then relaxes them towards the
// equilibrium (BGK) with a body force; the lattice constants live in __constant__ memory.
#include <vector>
#include "lbm.h"
#include "../common/helpers.h"

__constant__ int c_cx[Q], c_cy[Q], c_opp[Q];
__constant__ float c_w[Q];

__global__ void streamCollide(const float *__restrict__ src, float *__restrict__ dst, const unsigned char *__restrict__ solid,
                              Flow flow) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= flow.nx) return;
    const int n = flow.nx * flow.ny, idx = y * flow.nx + x;
    if (solid[idx]) {
        for (int q = 0; q < Q; ++q) dst[q * n + idx] = 0.f;
        return;
    }
    float f[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        int sx = x - c_cx[q], sy = y - c_cy[q];
        sx = sx < 0 ? sx + flow.nx : (sx >= flow.nx ? sx - flow.nx : sx);
        int s = sy * flow.nx + sx;
        f[q] = solid[s] ? src[c_opp[q] * n + idx] : src[q * n + s];
    }
    float rho = 0.f, ux = 0.f, uy = 0.f;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        rho += f[q];
        ux += c_cx[q] * f[q];
        uy += c_cy[q] * f[q];
    }
    ux = (ux + 0.5f * flow.force) / rho; // the velocity shifted by half the force
    uy /= rho;
    const float usq = 1.5f * (ux * ux + uy * uy);
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        float cu = 3.f * (c_cx[q] * ux + c_cy[q] * uy);
        float feq = c_w[q] * rho * (1.f + cu + 0.5f * cu * cu - usq);
        float forcing = 3.f * c_w[q] * c_cx[q] * flow.force;
        dst[q * n + idx] = f[q] - flow.omega * (f[q] - feq) + forcing;
    }
}

int lbmDevice(const Flow &flow, float *f, int steps) {
    const int n = flow.nx * flow.ny;
    checkCudaErrors(cudaMemcpyToSymbol(c_cx, CX, sizeof CX));
    checkCudaErrors(cudaMemcpyToSymbol(c_cy, CY, sizeof CY));
    checkCudaErrors(cudaMemcpyToSymbol(c_opp, OPP, sizeof OPP));
    checkCudaErrors(cudaMemcpyToSymbol(c_w, W, sizeof W));
    std::vector<unsigned char> solid(n);
    for (int y = 0; y < flow.ny; ++y)
        for (int x = 0; x < flow.nx; ++x) solid[y * flow.nx + x] = solidCell(x, y, flow.nx, flow.ny);
    unsigned char *dSolid;
    checkCudaErrors(cudaMalloc(&dSolid, n));
    checkCudaErrors(cudaMemcpy(dSolid, solid.data(), n, cudaMemcpyHostToDevice));
    float *buf[2];
    checkCudaErrors(cudaMalloc(&buf[0], size_t(Q) * n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&buf[1], size_t(Q) * n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(buf[0], f, size_t(Q) * n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(128), grid((flow.nx + 127) / 128, flow.ny);
    for (int s = 0; s < steps; ++s) {
        streamCollide<<<grid, block>>>(buf[s % 2], buf[(s + 1) % 2], dSolid, flow);
        checkCudaErrors(cudaGetLastError());
    }
    checkCudaErrors(cudaMemcpy(f, buf[steps % 2], size_t(Q) * n * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaFree(buf[0]));
    checkCudaErrors(cudaFree(buf[1]));
    checkCudaErrors(cudaFree(dSolid));
    return steps;
}
