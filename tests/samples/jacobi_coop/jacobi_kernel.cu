// Jacobi sweeps in one cooperative kernel: each sweep writes the other buffer, and the grid
// decides together whether to stop through a three-phase reduction of the sweep's largest
// change: (1) each block reduces its threads' maxima in shared memory and publishes one
// partial; grid sync; (2) every block reduces the partials itself, in the same order, so all
// blocks reach the same decision without an atomic; (3) the next sweep starts after a last grid
// sync (no block may overwrite partials another is still reading). Launched with
// cudaLaunchCooperativeKernel, grid sized by occupancy; cg::this_grid().sync() between phases.
#include <cooperative_groups.h>
#include "../common/helpers.h"
#include "jacobi.h"

namespace cg = cooperative_groups;

namespace {
constexpr int THREADS = 256;

template <int BLOCK>
__device__ float blockMax(float value, float *scratch) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
        __syncthreads();
    }
    float result = scratch[0];
    __syncthreads();
    return result;
}

__global__ void jacobi(const float *__restrict__ f, float *a, float *b, int n, float tolerance, int maxSweeps,
                       float *partials, int *sweepsDone) {
    __shared__ float scratch[THREADS];
    cg::grid_group grid = cg::this_grid();
    const float inverse = 1.0f / (4.0f + SCREEN);
    int cells = n * n;
    int sweep = 0;
    for (; sweep < maxSweeps;) {
        const float *from = (sweep % 2 == 0) ? a : b;
        float *to = (sweep % 2 == 0) ? b : a;
        float change = 0;
        for (int c = grid.thread_rank(); c < cells; c += grid.size()) {
            int i = c / n, j = c % n;
            float up = i > 0 ? from[c - n] : 0.0f, down = i + 1 < n ? from[c + n] : 0.0f;
            float left = j > 0 ? from[c - 1] : 0.0f, right = j + 1 < n ? from[c + 1] : 0.0f;
            float next = (f[c] + ((up + down) + (left + right))) * inverse;
            change = fmaxf(change, fabsf(next - from[c]));
            to[c] = next;
        }
        // Phase 1: a partial per block.
        float blockChange = blockMax<THREADS>(change, scratch);
        if (threadIdx.x == 0) partials[blockIdx.x] = blockChange;
        grid.sync();
        // Phase 2: every block reduces all partials.
        float mine = 0;
        for (int p = threadIdx.x; p < gridDim.x; p += THREADS) mine = fmaxf(mine, partials[p]);
        float largest = blockMax<THREADS>(mine, scratch);
        ++sweep;
        // Phase 3: nobody rewrites partials before everyone has read them.
        grid.sync();
        if (largest < tolerance) break;
    }
    if (grid.thread_rank() == 0) *sweepsDone = sweep;
}
}  // namespace

int jacobiOnDevice(const float *f, float *u, int n, float tolerance, int maxSweeps) {
    size_t bytes = (size_t)n * n * sizeof(float);
    int device, sms, perSm, cooperative;
    checkCudaErrors(cudaGetDevice(&device));
    checkCudaErrors(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    if (!cooperative) {
        fprintf(stderr, "jacobi_coop: the device does not support cooperative launches\n");
        exit(EXIT_FAILURE);
    }
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, jacobi, THREADS, 0));
    int blocks = sms * perSm;
    float *dF, *dA, *dB, *partials;
    int *dSweeps;
    checkCudaErrors(cudaMalloc(&dF, bytes));
    checkCudaErrors(cudaMalloc(&dA, bytes));
    checkCudaErrors(cudaMalloc(&dB, bytes));
    checkCudaErrors(cudaMalloc(&partials, blocks * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dSweeps, sizeof(int)));
    checkCudaErrors(cudaMemcpy(dF, f, bytes, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemset(dA, 0, bytes));
    void *args[] = {&dF, &dA, &dB, &n, &tolerance, &maxSweeps, &partials, &dSweeps};
    checkCudaErrors(cudaLaunchCooperativeKernel((void *)jacobi, blocks, THREADS, args, 0, 0));
    int sweeps = 0;
    checkCudaErrors(cudaMemcpy(&sweeps, dSweeps, sizeof(int), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(u, sweeps % 2 == 0 ? dA : dB, bytes, cudaMemcpyDeviceToHost));
    for (void *p : {(void *)dF, (void *)dA, (void *)dB, (void *)partials, (void *)dSweeps}) checkCudaErrors(cudaFree(p));
    return sweeps;
}
