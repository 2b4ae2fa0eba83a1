// The device lattice, as CUDA's binomialOptions sample computes it: one block per option; the
// leaves' payoffs live in global memory, and the block walks the tree back to its root in
// shared-memory tiles of 256 nodes: each tile is advanced 32 levels in shared memory, ping-ponging
// between two arrays with a __syncthreads before each level (a loop inside the tile loop inside
// the level loop), and its 224 finished nodes written back. Templated on the arithmetic.
#include "../common/helpers.h"
#include "binomial.h"
#include "binomial_gold.cpp.h"

namespace {
constexpr int CACHE_SIZE = 256;  // threads per block, nodes per shared tile
constexpr int TIME_STEPS = 16;   // level pairs a tile advances per pass
constexpr int CACHE_DELTA = 2 * TIME_STEPS;
constexpr int CACHE_STEP = CACHE_SIZE - CACHE_DELTA;

template <typename Real>
__device__ Real expReal(Real x);
template <>
__device__ float expReal<float>(float x) { return expf(x); }
template <>
__device__ double expReal<double>(double x) { return exp(x); }

// One block per option; `levels` must be a multiple of CACHE_DELTA.
template <typename Real>
__global__ void binomialKernel(const OptionData *options, const LatticeStep<Real> *steps, Real *buffers,
                               int levels, double *prices) {
    __shared__ Real callA[CACHE_SIZE + 1];
    __shared__ Real callB[CACHE_SIZE + 1];
    const int tid = threadIdx.x;
    const OptionData o = options[blockIdx.x];
    const LatticeStep<Real> k = steps[blockIdx.x];
    const Real puByDf = k.puByDf, pdByDf = k.pdByDf;
    Real *call = buffers + (size_t)blockIdx.x * (levels + 1);

    // The leaves.
    for (int i = tid; i <= levels; i += CACHE_SIZE) {
        Real s = (Real)o.spot * expReal<Real>(k.vDt * (Real)(2 * i - levels));
        Real payoff = s - (Real)o.strike;
        call[i] = payoff > 0 ? payoff : 0;
    }

    // Back to the root, CACHE_DELTA levels per pass; each tile ends CACHE_DELTA nodes short of
    // what it loaded, and the next tile starts where this one's results end.
    for (int i = levels; i > 0; i -= CACHE_DELTA) {
        for (int c_base = 0; c_base < i; c_base += CACHE_STEP) {
            int c_start = min(CACHE_SIZE - 1, i - c_base);
            int c_end = c_start - CACHE_DELTA;
            __syncthreads();
            if (tid <= c_start) callA[tid] = call[c_base + tid];
            for (int level = c_start - 1; level >= c_end;) {
                __syncthreads();
                if (tid <= level) callB[tid] = puByDf * callA[tid + 1] + pdByDf * callA[tid];
                level--;
                __syncthreads();
                if (tid <= level) callA[tid] = puByDf * callB[tid + 1] + pdByDf * callB[tid];
                level--;
            }
            __syncthreads();
            if (tid <= c_end) call[c_base + tid] = callA[tid];
        }
    }
    if (tid == 0) prices[blockIdx.x] = (double)callA[0];
}
}  // namespace

template <typename Real>
void binomialOnDevice(const OptionData *options, int count, int steps, double *prices) {
    std::vector<LatticeStep<Real>> constants(count);
    for (int i = 0; i < count; ++i) constants[i] = latticeStep<Real>(options[i], steps);
    OptionData *dOptions;
    LatticeStep<Real> *dSteps;
    Real *dBuffers;
    double *dPrices;
    checkCudaErrors(cudaMalloc(&dOptions, count * sizeof(OptionData)));
    checkCudaErrors(cudaMalloc(&dSteps, count * sizeof(LatticeStep<Real>)));
    checkCudaErrors(cudaMalloc(&dBuffers, (size_t)count * (steps + 1) * sizeof(Real)));
    checkCudaErrors(cudaMalloc(&dPrices, count * sizeof(double)));
    checkCudaErrors(cudaMemcpy(dOptions, options, count * sizeof(OptionData), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dSteps, constants.data(), count * sizeof(LatticeStep<Real>), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemset(dBuffers, 0, (size_t)count * (steps + 1) * sizeof(Real)));
    binomialKernel<Real><<<count, CACHE_SIZE>>>(dOptions, dSteps, dBuffers, steps, dPrices);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(prices, dPrices, count * sizeof(double), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaFree(dOptions));
    checkCudaErrors(cudaFree(dSteps));
    checkCudaErrors(cudaFree(dBuffers));
    checkCudaErrors(cudaFree(dPrices));
}

template void binomialOnDevice<float>(const OptionData *, int, int, double *);
template void binomialOnDevice<double>(const OptionData *, int, int, double *);
