// Jacobi relaxation of a screened Poisson problem on an N x N grid, in one cooperative kernel
// (jacobi_kernel.cu), with the host's sweep (main.cu) computing the same iterates.
#pragma once

// (4 + SCREEN) u[i][j] - (the four neighbours, 0 outside the grid) = f[i][j]
constexpr float SCREEN = 0.25f;

// Runs sweeps until the largest change of a sweep falls below `tolerance` (or maxSweeps);
// returns the sweeps done and leaves the final iterate in u.
int jacobiOnDevice(const float *f, float *u, int n, float tolerance, int maxSweeps);
