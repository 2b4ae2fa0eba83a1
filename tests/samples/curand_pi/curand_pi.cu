// Monte-Carlo pi and normal moments with cuRAND's device API, as CUDA's samples write it: one
// XORWOW state per thread (curand_init with the thread's subsequence), states kept in global
// memory between launches, curand_uniform / curand_normal; and a Philox4x32-10 pass with
// curand_uniform4. The counts are exact functions of the generators, so a GPU under chevron and
// under NVIDIA's runtime (and the CPU device) print the same numbers.
#include <curand_kernel.h>
#include "../common/helpers.h"

__global__ void setupXorwow(curandState *states, unsigned long long seed) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void countInside(curandState *states, int samples, unsigned long long *inside,
                            double *normalSum, double *normalSquares) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned hits = 0;
    double sum = 0, squares = 0;
    for (int i = 0; i < samples; ++i) {
        float x = curand_uniform(&local), y = curand_uniform(&local);
        hits += x * x + y * y <= 1.0f;
        float n = curand_normal(&local);
        sum += n;
        squares += (double)n * n;
    }
    states[id] = local;
    atomicAdd(inside, (unsigned long long)hits);
    atomicAdd(normalSum, sum);
    atomicAdd(normalSquares, squares);
}

__global__ void philoxInside(unsigned long long seed, int samples, unsigned long long *inside) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, id, 0, &state);
    unsigned hits = 0;
    for (int i = 0; i < samples; i += 2) {
        float4 r = curand_uniform4(&state);
        hits += (r.x * r.x + r.y * r.y <= 1.0f) + (r.z * r.z + r.w * r.w <= 1.0f);
    }
    atomicAdd(inside, (unsigned long long)hits);
}

int main(int argc, char **argv) {
    const int blocks = 32, threads = 128, n = blocks * threads;
    int samples = sizeArg(argc, argv, 64);
    curandState *states;
    unsigned long long *inside;
    double *moments;
    checkCudaErrors(cudaMalloc(&states, n * sizeof(curandState)));
    checkCudaErrors(cudaMalloc(&inside, 2 * sizeof(unsigned long long)));
    checkCudaErrors(cudaMalloc(&moments, 2 * sizeof(double)));
    checkCudaErrors(cudaMemset(inside, 0, 2 * sizeof(unsigned long long)));
    checkCudaErrors(cudaMemset(moments, 0, 2 * sizeof(double)));
    setupXorwow<<<blocks, threads>>>(states, 1234ull);
    getLastCudaError("setupXorwow");
    // Two launches over the same states: the second continues each thread's stream.
    for (int round = 0; round < 2; ++round)
        countInside<<<blocks, threads>>>(states, samples / 2, inside, moments, moments + 1);
    philoxInside<<<blocks, threads>>>(42ull, samples, inside + 1);
    getLastCudaError("countInside");
    unsigned long long hits[2];
    double m[2];
    checkCudaErrors(cudaMemcpy(hits, inside, sizeof hits, cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(m, moments, sizeof m, cudaMemcpyDeviceToHost));
    double total = (double)n * samples;
    double pi = 4.0 * hits[0] / total, piPhilox = 4.0 * hits[1] / total;
    double mean = m[0] / total, variance = m[1] / total - mean * mean;
    printf("xorwow: %llu of %.0f inside, pi ~ %.6f\n", hits[0], total, pi);
    printf("philox: %llu of %.0f inside, pi ~ %.6f\n", hits[1], total, piPhilox);
    printf("normal: mean %.4f, variance %.4f\n", mean, variance);
    bool ok = fabs(pi - 3.14159265) < 0.01 && fabs(piPhilox - 3.14159265) < 0.01 && fabs(mean) < 0.01 &&
              fabs(variance - 1.0) < 0.02;
    checkCudaErrors(cudaFree(states));
    checkCudaErrors(cudaFree(inside));
    checkCudaErrors(cudaFree(moments));
    printf("curand_pi: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
