// Monte-Carlo option pricing with cuRAND's device API, in the shape of CUDA's MonteCarlo
// sample: a grid of GRID_BLOCKS x THREADS generators (curand_init with the thread's
// subsequence, states kept in global memory), a pricing kernel templated on the state type in
// which every thread draws its share of each option's paths (load state, loop, store state),
// and a shared-memory tree reduction per block into per-block partial sums, which the host adds
// in a fixed order so that the result does not depend on block scheduling.
#include <curand_kernel.h>
#include <vector>
#include "../common/helpers.h"
#include "options.h"

namespace {
constexpr int THREADS = 256;
constexpr int GRID_BLOCKS = 64;
constexpr int GENERATORS = THREADS * GRID_BLOCKS;

template <typename State>
__global__ void initGenerators(State *states, unsigned long long seed) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__device__ __forceinline__ float callPayoff(float drift, float diffusion, float spot, float strike,
                                            float z) {
    float end = spot * __expf(drift + diffusion * z);
    return fmaxf(end - strike, 0.0f);
}

// Each thread's paths for one option, as (sum, sum of squares) of the undiscounted payoffs.
template <typename State>
__device__ float2 threadPaths(State &state, float drift, float diffusion, const Option &o, int count);

template <>
__device__ float2 threadPaths<curandState>(curandState &state, float drift, float diffusion,
                                           const Option &o, int count) {
    float sum = 0, squares = 0;
    for (int i = 0; i < count; ++i) {
        float p = callPayoff(drift, diffusion, o.spot, o.strike, curand_normal(&state));
        sum += p;
        squares += p * p;
    }
    return make_float2(sum, squares);
}

template <>
__device__ float2 threadPaths<curandStatePhilox4_32_10_t>(curandStatePhilox4_32_10_t &state, float drift,
                                                          float diffusion, const Option &o, int count) {
    float sum = 0, squares = 0;
    for (int i = 0; i < count; i += 4) {
        float4 z = curand_normal4(&state);
        float p0 = callPayoff(drift, diffusion, o.spot, o.strike, z.x);
        float p1 = callPayoff(drift, diffusion, o.spot, o.strike, z.y);
        float p2 = callPayoff(drift, diffusion, o.spot, o.strike, z.z);
        float p3 = callPayoff(drift, diffusion, o.spot, o.strike, z.w);
        sum += (p0 + p1) + (p2 + p3);
        squares += (p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3);
    }
    return make_float2(sum, squares);
}

template <typename State>
__global__ void priceOptions(State *states, const Option *options, int count, int pathsPerThread,
                             double2 *partials) {
    __shared__ double sums[THREADS], squares[THREADS];
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    State state = states[id];
    for (int opt = 0; opt < count; ++opt) {
        Option o = options[opt];
        float drift = (o.rate - 0.5f * o.volatility * o.volatility) * o.years;
        float diffusion = o.volatility * sqrtf(o.years);
        float2 mine = threadPaths(state, drift, diffusion, o, pathsPerThread);
        sums[threadIdx.x] = mine.x;
        squares[threadIdx.x] = mine.y;
        __syncthreads();
        for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
            if (threadIdx.x < stride) {
                sums[threadIdx.x] += sums[threadIdx.x + stride];
                squares[threadIdx.x] += squares[threadIdx.x + stride];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) partials[opt * GRID_BLOCKS + blockIdx.x] = make_double2(sums[0], squares[0]);
        __syncthreads();
    }
    states[id] = state;
}

// The generators of one kind, made on first use.
template <typename State>
struct Generators {
    State *states = nullptr;
    State *get(unsigned long long seed) {
        if (!states) {
            checkCudaErrors(cudaMalloc(&states, GENERATORS * sizeof(State)));
            initGenerators<<<GRID_BLOCKS, THREADS>>>(states, seed);
            checkCudaErrors(cudaGetLastError());
        }
        return states;
    }
    void release() {
        if (states) checkCudaErrors(cudaFree(states));
        states = nullptr;
    }
};

Generators<curandState> xorwow;
Generators<curandStatePhilox4_32_10_t> philox;

template <typename State>
void price(State *states, const Option *options, int count, int paths, Estimate *out) {
    Option *dOptions;
    double2 *dPartials;
    checkCudaErrors(cudaMalloc(&dOptions, count * sizeof(Option)));
    checkCudaErrors(cudaMalloc(&dPartials, count * GRID_BLOCKS * sizeof(double2)));
    checkCudaErrors(cudaMemcpy(dOptions, options, count * sizeof(Option), cudaMemcpyHostToDevice));
    priceOptions<<<GRID_BLOCKS, THREADS>>>(states, dOptions, count, paths / GENERATORS, dPartials);
    checkCudaErrors(cudaGetLastError());
    std::vector<double2> partials(count * GRID_BLOCKS);
    checkCudaErrors(cudaMemcpy(partials.data(), dPartials, partials.size() * sizeof(double2),
                               cudaMemcpyDeviceToHost));
    for (int opt = 0; opt < count; ++opt) {
        double sum = 0, squares = 0;
        for (int b = 0; b < GRID_BLOCKS; ++b) {
            sum += partials[opt * GRID_BLOCKS + b].x;
            squares += partials[opt * GRID_BLOCKS + b].y;
        }
        double taken = (double)(paths / GENERATORS) * GENERATORS;
        double mean = sum / taken, variance = squares / taken - mean * mean;
        double discount = exp(-(double)options[opt].rate * options[opt].years);
        out[opt].call = discount * mean;
        out[opt].stdError = discount * sqrt(variance > 0 ? variance / taken : 0.0);
    }
    checkCudaErrors(cudaFree(dOptions));
    checkCudaErrors(cudaFree(dPartials));
}
}  // namespace

void priceOnDevice(Generator generator, const Option *options, int count, int paths, Estimate *out) {
    if (generator == Generator::Xorwow)
        price(xorwow.get(1234), options, count, paths, out);
    else
        price(philox.get(5678), options, count, paths, out);
}

void releaseGenerators() {
    xorwow.release();
    philox.release();
}
