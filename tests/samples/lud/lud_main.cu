// LU decomposition in the style of Rodinia's lud: a diagonally dominant matrix is factored on
// the device (lud_kernels.cu), then checked two ways on the host: against a Doolittle
// factorization in double, and by multiplying L and U back into the original matrix.
// Default: 1024 x 1024 (argument: the size, a multiple of 16).
#include <algorithm>
#include <cmath>
#include <vector>
#include "lud.h"
#include "../common/helpers.h"

int main(int argc, char **argv) {
    const int n = sizeArg(argc, argv, 1024) / BLOCK_SIZE * BLOCK_SIZE;
    std::vector<float> a(size_t(n) * n);
    Lcg rng(2024);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) a[size_t(i) * n + j] = rng.uniform() + (i == j ? float(n) / 4 : 0.f);

    float *d_m;
    const size_t bytes = a.size() * sizeof(float);
    checkCudaErrors(cudaMalloc(&d_m, bytes));
    checkCudaErrors(cudaMemcpy(d_m, a.data(), bytes, cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    int launches = lud_cuda(d_m, n);
    float ms = timer.stop();
    std::vector<float> lu(a.size());
    checkCudaErrors(cudaMemcpy(lu.data(), d_m, bytes, cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaFree(d_m));

    // Host factorization in double (Doolittle, the same pivots).
    std::vector<double> ref(a.begin(), a.end());
    for (int k = 0; k < n; ++k) {
        const double *rk = &ref[size_t(k) * n];
        for (int i = k + 1; i < n; ++i) {
            double *ri = &ref[size_t(i) * n];
            double l = ri[k] /= rk[k];
            for (int j = k + 1; j < n; ++j) ri[j] -= l * rk[j];
        }
    }
    double maxFactorErr = 0;
    for (size_t i = 0; i < lu.size(); ++i)
        maxFactorErr = std::max(maxFactorErr, std::fabs(lu[i] - ref[i]) / (1.0 + std::fabs(ref[i])));

    // L * U against A on a sample of rows (every 7th), all columns.
    double maxResidual = 0;
    for (int i = 0; i < n; i += 7)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k <= std::min(i, j); ++k)
                s += (k == i ? 1.0 : lu[size_t(i) * n + k]) * lu[size_t(k) * n + j];
            maxResidual = std::max(maxResidual, std::fabs(s - a[size_t(i) * n + j]) / (n / 4.0));
        }
    double trace = 0;
    for (int i = 0; i < n; ++i) trace += lu[size_t(i) * n + i];
    printf("matrix %d x %d, %d launches, kernel time %s\n", n, n, launches, ms >= 0 ? "ok" : "?");
    printf("sum of U's diagonal %.3f, max factor error %s, max residual %s\n", trace,
           maxFactorErr < 1e-4 ? "< 1e-4" : "TOO LARGE", maxResidual < 1e-5 ? "< 1e-5" : "TOO LARGE");
    if (maxFactorErr >= 1e-4 || maxResidual >= 1e-5)
        printf("max factor error %.3e, max residual %.3e\n", maxFactorErr, maxResidual);
    return finish("lud", maxFactorErr < 1e-4 && maxResidual < 1e-5);
}
