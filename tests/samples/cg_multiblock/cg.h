// Conjugate gradient in one cooperative kernel (cg_kernel.cu), over a CSR matrix that the host
// (main.cu) generates and checks.
#pragma once

struct CsrMatrix {
    int rows, nonzeros;
    const int *rowStart;  // rows + 1 offsets
    const int *columns;
    const float *values;
};

// Solves A x = b on the device from x = 0 until the residual's norm falls below `tolerance` or
// `maxIterations` pass; returns the iterations taken and the final residual norm squared.
int solveOnDevice(const CsrMatrix &hostA, const float *b, float *x, float tolerance, int maxIterations,
                  double *residualSquared);
