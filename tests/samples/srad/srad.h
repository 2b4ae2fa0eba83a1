// SRAD (Rodinia's srad_v2): the image layout and the device steps the host loop calls.
#pragma once

#define BLOCK_SIZE 16

// The region of interest whose speckle statistics drive the diffusion, rows r1..r2 and
// columns c1..c2 inclusive.
struct Roi {
    int r1, r2, c1, c2;
};

// Device buffers of a rows x cols image (both multiples of BLOCK_SIZE).
struct Image {
    int rows, cols;
    float *J, *C, *dN, *dS, *dW, *dE;
    double *partial; // two doubles (sum, sum of squares) per reduction block
};

constexpr int kReduceBlocks = 64;
constexpr int kReduceThreads = 256;

// The ROI's sum and sum of squares, in a fixed order (partials per block summed on the host).
void roi_statistics(const Image &img, Roi roi, double *sum, double *sum2);
// One SRAD iteration: diffusion coefficients from q0sqr, then the update of J.
void srad_step(const Image &img, float q0sqr, float lambda);
