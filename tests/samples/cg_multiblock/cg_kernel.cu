// The whole conjugate-gradient loop in one kernel, as CUDA's conjugateGradientMultiBlockCG
// sample runs it: launched with cudaLaunchCooperativeKernel at the occupancy limit, every phase
// (SpMV, axpy, dot products) a grid-stride loop, dot products reduced in warps with
// cg::reduce over thread_block_tile<32>, added into a double with atomicAdd, and
// cg::this_grid().sync() between phases. The scalars live in device memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "../common/helpers.h"
#include "cg.h"

namespace cg = cooperative_groups;

namespace {
constexpr int THREADS = 512;

struct Scalars {
    double dot;       // the dot product being accumulated
    double rr;        // r.r of the current iterate
    double pAp;
    int iterations;
};

__device__ void spmv(const int *rowStart, const int *columns, const float *values, const float *in, float *out,
                     int rows, const cg::grid_group &grid) {
    for (int i = grid.thread_rank(); i < rows; i += grid.size()) {
        float sum = 0;
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k) sum += values[k] * in[columns[k]];
        out[i] = sum;
    }
}

// Adds a.b into *result (which the caller zeroed before the last grid sync).
__device__ void dot(const float *a, const float *b, double *result, int n, const cg::grid_group &grid,
                    const cg::thread_block &block) {
    double mine = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) mine += (double)(a[i] * b[i]);
    extern __shared__ double warpSums[];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    mine = cg::reduce(warp, mine, cg::plus<double>());
    if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = mine;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        double sum = warp.thread_rank() < warp.meta_group_size() ? warpSums[warp.thread_rank()] : 0.0;
        sum = cg::reduce(warp, sum, cg::plus<double>());
        if (warp.thread_rank() == 0) atomicAdd(result, sum);
    }
}

__global__ void conjugateGradient(const int *rowStart, const int *columns, const float *values, const float *b,
                                  float *x, float *r, float *p, float *ap, int rows, float tolerance,
                                  int maxIterations, Scalars *s) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    // x = 0, r = p = b.
    for (int i = grid.thread_rank(); i < rows; i += grid.size()) {
        x[i] = 0;
        r[i] = b[i];
        p[i] = b[i];
    }
    if (grid.thread_rank() == 0) s->dot = 0;
    grid.sync();
    dot(r, r, &s->dot, rows, grid, block);
    grid.sync();
    double rr = s->dot;
    int k = 0;
    while (rr > (double)tolerance * tolerance && k < maxIterations) {
        spmv(rowStart, columns, values, p, ap, rows, grid);
        if (grid.thread_rank() == 0) s->pAp = 0;
        grid.sync();
        dot(p, ap, &s->pAp, rows, grid, block);
        grid.sync();
        float alpha = (float)(rr / s->pAp);
        for (int i = grid.thread_rank(); i < rows; i += grid.size()) {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        if (grid.thread_rank() == 0) s->dot = 0;
        grid.sync();
        dot(r, r, &s->dot, rows, grid, block);
        grid.sync();
        double rrNext = s->dot;
        float beta = (float)(rrNext / rr);
        for (int i = grid.thread_rank(); i < rows; i += grid.size()) p[i] = r[i] + beta * p[i];
        rr = rrNext;
        ++k;
        grid.sync();
    }
    if (grid.thread_rank() == 0) {
        s->rr = rr;
        s->iterations = k;
    }
}

template <typename T>
T *upload(const T *host, size_t n) {
    T *device;
    checkCudaErrors(cudaMalloc(&device, n * sizeof(T)));
    checkCudaErrors(cudaMemcpy(device, host, n * sizeof(T), cudaMemcpyHostToDevice));
    return device;
}
}  // namespace

int solveOnDevice(const CsrMatrix &hostA, const float *b, float *x, float tolerance, int maxIterations,
                  double *residualSquared) {
    int rows = hostA.rows;
    int *rowStart = upload(hostA.rowStart, rows + 1), *columns = upload(hostA.columns, hostA.nonzeros);
    float *values = upload(hostA.values, hostA.nonzeros), *dB = upload(b, rows);
    float *dX, *r, *p, *ap;
    Scalars *scalars;
    for (float **v : {&dX, &r, &p, &ap}) checkCudaErrors(cudaMalloc(v, rows * sizeof(float)));
    checkCudaErrors(cudaMalloc(&scalars, sizeof(Scalars)));

    int device, sms, cooperative, perSm;
    checkCudaErrors(cudaGetDevice(&device));
    checkCudaErrors(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) {
        fprintf(stderr, "cg_multiblock: the device does not support cooperative launches\n");
        exit(EXIT_FAILURE);
    }
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    size_t shared = sizeof(double) * (THREADS / 32 + 1);
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, conjugateGradient, THREADS, shared));
    dim3 grid(sms * perSm), block(THREADS);
    void *args[] = {&rowStart, &columns, &values, &dB, &dX, &r, &p, &ap, &rows, &tolerance, &maxIterations, &scalars};
    checkCudaErrors(cudaLaunchCooperativeKernel((void *)conjugateGradient, grid, block, args, shared, 0));
    checkCudaErrors(cudaDeviceSynchronize());

    Scalars result;
    checkCudaErrors(cudaMemcpy(&result, scalars, sizeof(Scalars), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(x, dX, rows * sizeof(float), cudaMemcpyDeviceToHost));
    for (void *v : {(void *)rowStart, (void *)columns, (void *)values, (void *)dB, (void *)dX, (void *)r, (void *)p,
                    (void *)ap, (void *)scalars})
        checkCudaErrors(cudaFree(v));
    *residualSquared = result.rr;
    return result.iterations;
}
