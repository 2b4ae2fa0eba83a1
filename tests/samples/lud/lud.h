// LU decomposition (Rodinia's lud): the interface between the host program and the kernels.
#pragma once

constexpr int BLOCK_SIZE = 16;

// Factors the n x n row-major matrix at d_m in place (Doolittle, no pivoting: L has a unit
// diagonal and lies below it, U on and above it); n is a multiple of BLOCK_SIZE. Returns the
// number of kernel launches made.
int lud_cuda(float *d_m, int n);
