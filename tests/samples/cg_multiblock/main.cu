// Conjugate gradient on a random symmetric, diagonally dominant tridiagonal system of 2^20
// rows (the size of CUDA's conjugateGradientMultiBlockCG), solved in one cooperative kernel
// (cg_kernel.cu). The host checks the answer itself: the residual b - A x computed in double
// must be below 1e-4 in every row, and the kernel must have stopped by its tolerance, not by
// the iteration limit. The first argument: the row count.
#include <cmath>
#include <vector>
#include "../common/helpers.h"
#include "cg.h"

// The sample's matrix: diagonal 10 + U(0,1), off-diagonals U(0,1), symmetric.
static void tridiagonal(int n, std::vector<int> &rowStart, std::vector<int> &columns, std::vector<float> &values) {
    Lcg rng(7);
    std::vector<float> lower(n, 0.0f);  // lower[i] = A(i, i-1) = A(i-1, i)
    for (int i = 1; i < n; ++i) lower[i] = rng.uniform();
    rowStart.assign(1, 0);
    for (int i = 0; i < n; ++i) {
        if (i > 0) {
            columns.push_back(i - 1);
            values.push_back(lower[i]);
        }
        columns.push_back(i);
        values.push_back(10.0f + rng.uniform());
        if (i + 1 < n) {
            columns.push_back(i + 1);
            values.push_back(lower[i + 1]);
        }
        rowStart.push_back((int)columns.size());
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    if (n < 2 || n > (1 << 24)) {
        fprintf(stderr, "cg_multiblock: row count %d outside 2..2^24\n", n);
        return EXIT_FAILURE;
    }
    const float tolerance = 1e-5f;
    const int maxIterations = 10000;
    std::vector<int> rowStart, columns;
    std::vector<float> values;
    tridiagonal(n, rowStart, columns, values);
    std::vector<float> b(n, 1.0f), x(n);
    CsrMatrix a{n, (int)values.size(), rowStart.data(), columns.data(), values.data()};

    checkCudaErrors(cudaSetDevice(0));
    double rr = 0;
    int iterations = solveOnDevice(a, b.data(), x.data(), tolerance, maxIterations, &rr);

    double worst = 0;
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k) sum += (double)values[k] * x[columns[k]];
        worst = fmax(worst, fabs(b[i] - sum));
    }
    bool converged = iterations < maxIterations && sqrt(rr) <= tolerance;
    bool ok = converged && worst < 1e-4;
    printf("CG on %d rows (%zu nonzeros): %s, host residual %s 1e-4\n", n, values.size(),
           converged ? "converged" : "NOT converged", worst < 1e-4 ? "below" : "ABOVE");
    if (!ok) printf("  %d iterations, device residual %.3e, host residual %.3e\n", iterations, sqrt(rr), worst);
    return finish("cg_multiblock", ok);
}
