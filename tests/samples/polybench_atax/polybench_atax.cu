// PolyBench-GPU's ATAX kernel pair, y = A^T (A x): one kernel computes tmp = A x (a thread per
// row), the second y = A^T tmp (a thread per column), in double precision.
#include <vector>
#include "../common/helpers.h"

__global__ void ataxKernel1(const double *A, const double *x, double *tmp, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        double s = 0;
        for (int j = 0; j < ny; ++j) s += A[i * ny + j] * x[j];
        tmp[i] = s;
    }
}

__global__ void ataxKernel2(const double *A, const double *tmp, double *y, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        double s = 0;
        for (int i = 0; i < nx; ++i) s += A[i * ny + j] * tmp[i];
        y[j] = s;
    }
}

int main(int argc, char **argv) {
    int nx = sizeArg(argc, argv, 4096), ny = nx;
    std::vector<double> A((size_t)nx * ny), x(ny), y(ny), tmp(nx), ref(ny, 0);
    for (int i = 0; i < ny; ++i) x[i] = i * 3.14159;
    for (int i = 0; i < nx; ++i)
        for (int j = 0; j < ny; ++j) A[(size_t)i * ny + j] = ((double)i * (j + 1)) / nx;
    double *dA, *dx, *dy, *dtmp;
    checkCudaErrors(cudaMalloc(&dA, A.size() * sizeof(double)));
    checkCudaErrors(cudaMalloc(&dx, ny * sizeof(double)));
    checkCudaErrors(cudaMalloc(&dy, ny * sizeof(double)));
    checkCudaErrors(cudaMalloc(&dtmp, nx * sizeof(double)));
    checkCudaErrors(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dx, x.data(), ny * sizeof(double), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    ataxKernel1<<<(nx + 255) / 256, 256>>>(dA, dx, dtmp, nx, ny);
    ataxKernel2<<<(ny + 255) / 256, 256>>>(dA, dtmp, dy, nx, ny);
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(y.data(), dy, ny * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < nx; ++i) {
        double s = 0;
        for (int j = 0; j < ny; ++j) s += A[(size_t)i * ny + j] * x[j];
        tmp[i] = s;
    }
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) ref[j] += A[(size_t)i * ny + j] * tmp[i];
    double maxRel = 0;
    for (int j = 0; j < ny; ++j) maxRel = fmax(maxRel, fabs(y[j] - ref[j]) / fmax(1.0, fabs(ref[j])));
    printf("atax %dx%d: max relative error %s 1e-9\n", nx, ny, maxRel < 1e-9 ? "<" : ">=");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dx));
    checkCudaErrors(cudaFree(dy));
    checkCudaErrors(cudaFree(dtmp));
    return finish("polybench_atax", maxRel < 1e-9);
}
