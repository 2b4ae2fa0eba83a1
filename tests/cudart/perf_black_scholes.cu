// European option pricing with the Black-Scholes formula over 4,000,000 options (the size of
// CUDA's BlackScholes sample), one option per thread in a grid-stride loop, with the sample's
// polynomial approximation of the cumulative normal distribution. Checked against the same
// formula in double precision on the host (largest error and the sum of prices).
// Usage: perf_black_scholes [options] [iterations]
#include <cmath>
#include <vector>
#include "perf_common.h"

constexpr float kRiskFree = 0.02f, kVolatility = 0.30f;

__device__ __host__ inline float cndPolynomial(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
                a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267793994605993438f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float cnd = rsqrt2pi * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0f - cnd : cnd;
}

__global__ void blackScholes(float *call, float *put, const float *price, const float *strike,
                             const float *years, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float s = price[i], x = strike[i], t = years[i];
        float sqrtT = sqrtf(t);
        float d1 = (logf(s / x) + (kRiskFree + 0.5f * kVolatility * kVolatility) * t) /
                   (kVolatility * sqrtT);
        float d2 = d1 - kVolatility * sqrtT;
        float cnd1 = cndPolynomial(d1), cnd2 = cndPolynomial(d2);
        float discount = expf(-kRiskFree * t);
        call[i] = s * cnd1 - x * discount * cnd2;
        put[i] = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}

static double cndHost(double d) {
    const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978,
                 a5 = 1.330274429, rsqrt2pi = 0.39894228040143267793994605993438;
    double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double cnd = rsqrt2pi * exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0 - cnd : cnd;
}

int main(int argc, char **argv) {
    int n = (int)argOr(argc, argv, 1, 4000000);
    int iterations = (int)argOr(argc, argv, 2, 8);
    std::vector<float> price(n), strike(n), years(n), call(n), put(n);
    Lcg rng(4000);
    for (int i = 0; i < n; ++i) {
        price[i] = 5.0f + 25.0f * rng.uniform();
        strike[i] = 1.0f + 99.0f * rng.uniform();
        years[i] = 0.25f + 9.75f * rng.uniform();
    }
    size_t bytes = n * sizeof(float);
    float *dCall, *dPut, *dPrice, *dStrike, *dYears;
    CHECK(cudaMalloc(&dCall, bytes));
    CHECK(cudaMalloc(&dPut, bytes));
    CHECK(cudaMalloc(&dPrice, bytes));
    CHECK(cudaMalloc(&dStrike, bytes));
    CHECK(cudaMalloc(&dYears, bytes));
    CHECK(cudaMemcpy(dPrice, price.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dStrike, strike.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dYears, years.data(), bytes, cudaMemcpyHostToDevice));
    // The sample's launch shape: 480 blocks of 128 threads.
    for (int it = 0; it < iterations; ++it) {
        blackScholes<<<480, 128>>>(dCall, dPut, dPrice, dStrike, dYears, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(call.data(), dCall, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(put.data(), dPut, bytes, cudaMemcpyDeviceToHost));
    double maxError = 0, sum = 0, hostSum = 0;
    for (int i = 0; i < n; ++i) {
        double s = price[i], x = strike[i], t = years[i], r = kRiskFree, v = kVolatility;
        double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt(t)), d2 = d1 - v * sqrt(t);
        double discount = exp(-r * t);
        double hostCall = s * cndHost(d1) - x * discount * cndHost(d2);
        double hostPut = x * discount * (1.0 - cndHost(d2)) - s * (1.0 - cndHost(d1));
        maxError = fmax(maxError, fmax(fabs(call[i] - hostCall), fabs(put[i] - hostPut)));
        sum += call[i] + put[i];
        hostSum += hostCall + hostPut;
    }
    printf("%d options x %d iterations: price sum %.2f (host %.2f), largest error %.2e\n", n,
           iterations, sum, hostSum, maxError);
    return finish("perf_black_scholes", maxError < 1e-3 && fabs(sum - hostSum) < 1e-6 * hostSum + 1);
}
