// The conjugate-gradient solver's pieces: a CSR matrix, the device vectors and the operations
// one iteration needs, and the error check every file uses.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CALL(x)                                                                       \
    do {                                                                                   \
        cudaError_t status = (x);                                                          \
        if (status != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorName(status), cudaGetErrorString(status));                 \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

struct CsrMatrix {
    int rows = 0;
    std::vector<int> rowPtr, cols;
    std::vector<double> vals;
};

// The 5-point Laplacian of a g x g grid plus `shift` on the diagonal (symmetric positive
// definite).
CsrMatrix poisson2d(int g, double shift);

struct SolveResult {
    int iterations;
    double residual;
    std::vector<double> x;
};

// Solves A x = b from x = 0 until ||r|| / ||b|| < tol or maxIter iterations.
SolveResult solveOnDevice(const CsrMatrix &a, const std::vector<double> &b, double tol,
                          int maxIter);
SolveResult solveOnHost(const CsrMatrix &a, const std::vector<double> &b, double tol, int maxIter);
