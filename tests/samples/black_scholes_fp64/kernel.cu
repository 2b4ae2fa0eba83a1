// The device side of black_scholes_fp64: a grid-stride kernel templated on the arithmetic,
// launched with a grid sized by cudaOccupancyMaxActiveBlocksPerMultiprocessor, with inputs and
// outputs in device memory, run `iterations` times as the sample's timing loop does.
#include "../common/helpers.h"
#include "pricing.h"

template <typename Real>
__global__ void blackScholesKernel(Real *__restrict__ call, Real *__restrict__ put, const Real *__restrict__ s,
                                   const Real *__restrict__ x, const Real *__restrict__ t, Real r, Real v,
                                   int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        blackScholes(call[i], put[i], s[i], x[i], t[i], r, v);
}

void blackScholesDevice(double *call, double *put, const double *s, const double *x, const double *t,
                        double r, double v, int n, int iterations) {
    const int threads = 128;
    int device, sms, perSm;
    checkCudaErrors(cudaGetDevice(&device));
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, blackScholesKernel<double>, threads, 0));
    int blocks = sms * perSm;
    size_t bytes = (size_t)n * sizeof(double);
    double *dCall, *dPut, *dS, *dX, *dT;
    checkCudaErrors(cudaMalloc(&dCall, bytes));
    checkCudaErrors(cudaMalloc(&dPut, bytes));
    checkCudaErrors(cudaMalloc(&dS, bytes));
    checkCudaErrors(cudaMalloc(&dX, bytes));
    checkCudaErrors(cudaMalloc(&dT, bytes));
    checkCudaErrors(cudaMemcpy(dS, s, bytes, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dX, x, bytes, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dT, t, bytes, cudaMemcpyHostToDevice));
    for (int i = 0; i < iterations; ++i) {
        blackScholesKernel<double><<<blocks, threads>>>(dCall, dPut, dS, dX, dT, r, v, n);
        checkCudaErrors(cudaGetLastError());
    }
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaMemcpy(call, dCall, bytes, cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(put, dPut, bytes, cudaMemcpyDeviceToHost));
    for (double *p : {dCall, dPut, dS, dX, dT}) checkCudaErrors(cudaFree(p));
}
