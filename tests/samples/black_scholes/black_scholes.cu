// Black-Scholes option pricing at the sample's default of 8M options, timed over repeated
// launches, with L1 and max errors against the host formula.
#include <vector>
#include "../common/helpers.h"
#include "black_scholes_kernel.cuh"
#include "black_scholes_gold.cpp.h"

int main(int argc, char **argv) {
    const int optN = sizeArg(argc, argv, 8000000), iterations = 4;
    const float riskFree = 0.02f, volatility = 0.30f;
    std::vector<float> price(optN), strike(optN), years(optN), call(optN), put(optN);
    Lcg rng(5347);
    for (int i = 0; i < optN; ++i) {
        price[i] = 5.0f + 25.0f * rng.uniform();
        strike[i] = 1.0f + 99.0f * rng.uniform();
        years[i] = 0.25f + 9.75f * rng.uniform();
    }
    float *d[5];
    for (auto &p : d) checkCudaErrors(cudaMalloc(&p, optN * sizeof(float)));
    checkCudaErrors(cudaMemcpy(d[2], price.data(), optN * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d[3], strike.data(), optN * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d[4], years.data(), optN * sizeof(float), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    for (int it = 0; it < iterations; ++it)
        blackScholesGPU<<<(optN / 2 + 127) / 128, 128>>>((float2 *)d[0], (float2 *)d[1], (float2 *)d[2],
                                                         (float2 *)d[3], (float2 *)d[4], riskFree, volatility, optN);
    float ms = timer.stop() / iterations;
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(call.data(), d[0], optN * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(put.data(), d[1], optN * sizeof(float), cudaMemcpyDeviceToHost));
    double sumDelta = 0, sumRef = 0, maxDelta = 0;
    for (int i = 0; i < optN; ++i) {
        double c, p;
        blackScholesHost(c, p, price[i], strike[i], years[i], riskFree, volatility);
        double delta = fabs(c - call[i]) + fabs(p - put[i]);
        sumDelta += delta;
        sumRef += fabs(c) + fabs(p);
        maxDelta = fmax(maxDelta, delta);
    }
    double l1 = sumDelta / sumRef;
    printf("options: %d, L1 norm %s 1e-6, max abs error %s 1e-4\n", optN, l1 < 1e-6 ? "<" : ">=", maxDelta < 1e-4 ? "<" : ">=");
    printf("time: %.3f ms per launch, %.2f GOptions/s\n", ms, optN / (ms * 1e6));
    for (auto &p : d) checkCudaErrors(cudaFree(p));
    return finish("black_scholes", l1 < 1e-6 && maxDelta < 1e-4);
}
