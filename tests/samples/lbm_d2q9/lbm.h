// Lattice Boltzmann D2Q9: the lattice, the flow's parameters and one step on the host, shared
// by the device program (lbm_kernels.cu) and the host reference (lbm_main.cu).
#pragma once

constexpr int Q = 9;
// Velocities: rest, then E, N, W, S, NE, NW, SW, SE.
static const int CX[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int CY[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int OPP[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
static const float W[Q] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};

struct Flow {
    int nx, ny;
    float omega; // 1 / relaxation time
    float force; // body force along x
};

// The cell types: fluid, or solid (walls at y = 0 and ny - 1, and a cylinder).
inline bool solidCell(int x, int y, int nx, int ny) {
    int cx = nx / 4, cy = ny / 2, r = ny / 8;
    return y == 0 || y == ny - 1 || (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
}

// Runs `steps` steps on the device from the distributions f (Q planes of nx * ny floats),
// leaving the result in f. Returns the number of launches.
int lbmDevice(const Flow &flow, float *f, int steps);
