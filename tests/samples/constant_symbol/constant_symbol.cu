// __constant__ and __device__ symbols: cudaMemcpyToSymbol (with an offset),
// cudaMemcpyFromSymbol, cudaGetSymbolAddress.
#include "../common/helpers.h"

__constant__ float coefficients[16];
__constant__ int polyDegree;
__device__ float results[1024];
__device__ int evaluations;

__global__ void evaluate(float step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1024) return;
    float x = i * step, y = 0.0f;
    for (int k = polyDegree; k >= 0; --k) y = y * x + coefficients[k];
    results[i] = y;
    atomicAdd(&evaluations, 1);
}

int main() {
    float coef[16] = {1.0f, -0.5f, 0.25f, 0.125f};
    int degree = 3, zero = 0;
    checkCudaErrors(cudaMemcpyToSymbol(coefficients, coef, sizeof(coef)));
    // Overwrite the last coefficient alone through an offset.
    float last = 0.0625f;
    checkCudaErrors(cudaMemcpyToSymbol(coefficients, &last, sizeof(float), 3 * sizeof(float)));
    coef[3] = last;
    checkCudaErrors(cudaMemcpyToSymbol(polyDegree, &degree, sizeof(int)));
    checkCudaErrors(cudaMemcpyToSymbol(evaluations, &zero, sizeof(int)));
    evaluate<<<4, 256>>>(1.0f / 256);
    checkCudaErrors(cudaGetLastError());
    float out[1024];
    int count = 0;
    checkCudaErrors(cudaMemcpyFromSymbol(out, results, sizeof(out)));
    checkCudaErrors(cudaMemcpyFromSymbol(&count, evaluations, sizeof(int)));
    float *addr = nullptr;
    checkCudaErrors(cudaGetSymbolAddress((void **)&addr, results));
    float viaAddr = 0;
    checkCudaErrors(cudaMemcpy(&viaAddr, addr + 512, sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = count == 1024 && viaAddr == out[512];
    for (int i = 0; i < 1024; ++i) {
        float x = i * (1.0f / 256), y = 0.0f;
        for (int k = degree; k >= 0; --k) y = y * x + coef[k];
        ok &= fabsf(y - out[i]) <= 1e-5f * fmaxf(1.0f, fabsf(y));
    }
    printf("evaluations = %d, p(2) = %.4f\n", count, out[512]);
    return finish("constant_symbol", ok);
}
