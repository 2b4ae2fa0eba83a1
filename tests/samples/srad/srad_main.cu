// Speckle reducing anisotropic diffusion in the style of Rodinia's srad_v2: an image is made
// from exponentials of noise (as Rodinia does), then diffused for a number of iterations, each
// taking the region of interest's statistics on the device, then running the two SRAD kernels
// (srad_kernels.cu). A host implementation of the same steps checks the image.
// Default: 2048 x 2048, ROI rows and columns 0..127, lambda 0.5, 4 iterations
// (arguments: rows, cols, iterations).
#include <algorithm>
#include <cmath>
#include <vector>
#include "srad.h"
#include "../common/helpers.h"

static void host_srad(std::vector<float> &J, int rows, int cols, Roi roi, float lambda, int iters) {
    const size_t n = size_t(rows) * cols;
    std::vector<float> C(n), dN(n), dS(n), dW(n), dE(n);
    for (int it = 0; it < iters; ++it) {
        double sum = 0, sum2 = 0;
        for (int i = roi.r1; i <= roi.r2; ++i)
            for (int j = roi.c1; j <= roi.c2; ++j) {
                double v = J[size_t(i) * cols + j];
                sum += v;
                sum2 += v * v;
            }
        double size = double(roi.r2 - roi.r1 + 1) * (roi.c2 - roi.c1 + 1);
        float meanROI = sum / size, varROI = (sum2 / size) - meanROI * meanROI;
        float q0sqr = varROI / (meanROI * meanROI);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                size_t k = size_t(i) * cols + j;
                float jc = J[k];
                float n_ = J[size_t(std::max(i - 1, 0)) * cols + j] - jc;
                float s_ = J[size_t(std::min(i + 1, rows - 1)) * cols + j] - jc;
                float w_ = J[size_t(i) * cols + std::max(j - 1, 0)] - jc;
                float e_ = J[size_t(i) * cols + std::min(j + 1, cols - 1)] - jc;
                float g2 = (n_ * n_ + s_ * s_ + w_ * w_ + e_ * e_) / (jc * jc);
                float l = (n_ + s_ + w_ + e_) / jc;
                float num = (0.5 * g2) - ((1.0 / 16.0) * (l * l));
                float den = 1 + (.25 * l);
                float qsqr = num / (den * den);
                den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
                float c = 1.0 / (1.0 + den);
                C[k] = c < 0 ? 0 : (c > 1 ? 1 : c);
                dN[k] = n_, dS[k] = s_, dW[k] = w_, dE[k] = e_;
            }
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                size_t k = size_t(i) * cols + j;
                float cS = C[size_t(std::min(i + 1, rows - 1)) * cols + j];
                float cE = C[size_t(i) * cols + std::min(j + 1, cols - 1)];
                float d = C[k] * dN[k] + cS * dS[k] + C[k] * dW[k] + cE * dE[k];
                J[k] = J[k] + 0.25 * lambda * d;
            }
    }
}

int main(int argc, char **argv) {
    const int rows = sizeArg(argc, argv, 2048) / BLOCK_SIZE * BLOCK_SIZE;
    const int cols = (argc > 2 ? atoi(argv[2]) : 2048) / BLOCK_SIZE * BLOCK_SIZE;
    const int niter = argc > 3 ? atoi(argv[3]) : 4;
    const Roi roi{0, std::min(127, rows - 1), 0, std::min(127, cols - 1)};
    const float lambda = 0.5f;
    const size_t n = size_t(rows) * cols;
    std::vector<float> J(n);
    Lcg rng(5);
    for (auto &v : J) v = expf(rng.uniform());

    Image img{rows, cols};
    for (float **p : {&img.J, &img.C, &img.dN, &img.dS, &img.dW, &img.dE})
        checkCudaErrors(cudaMalloc(p, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&img.partial, 2 * kReduceBlocks * sizeof(double)));
    checkCudaErrors(cudaMemcpy(img.J, J.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const double size = double(roi.r2 - roi.r1 + 1) * (roi.c2 - roi.c1 + 1);
    double firstQ0 = 0;
    for (int it = 0; it < niter; ++it) {
        double sum, sum2;
        roi_statistics(img, roi, &sum, &sum2);
        float meanROI = sum / size, varROI = (sum2 / size) - meanROI * meanROI;
        float q0sqr = varROI / (meanROI * meanROI);
        if (it == 0) firstQ0 = q0sqr;
        srad_step(img, q0sqr, lambda);
    }
    std::vector<float> out(n);
    checkCudaErrors(cudaMemcpy(out.data(), img.J, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (float *p : {img.J, img.C, img.dN, img.dS, img.dW, img.dE}) checkCudaErrors(cudaFree(p));
    checkCudaErrors(cudaFree(img.partial));

    host_srad(J, rows, cols, roi, lambda, niter);
    double maxRel = 0, total = 0;
    for (size_t k = 0; k < n; ++k) {
        maxRel = std::max(maxRel, double(std::fabs(out[k] - J[k]) / std::fabs(J[k])));
        total += out[k];
    }
    printf("image %d x %d, %d iterations, ROI %dx%d, first q0^2 %.6f\n", rows, cols, niter, roi.r2 - roi.r1 + 1,
           roi.c2 - roi.c1 + 1, firstQ0);
    printf("mean intensity %.5f, max relative difference from host %s\n", total / n, maxRel < 1e-4 ? "< 1e-4" : "TOO LARGE");
    if (maxRel >= 1e-4) printf("max relative difference %.3e\n", maxRel);
    return finish("srad", maxRel < 1e-4);
}
