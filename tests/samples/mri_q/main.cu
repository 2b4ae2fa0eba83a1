// MRI-Q in the style of Parboil's mri-q: the Q matrix of a non-Cartesian MRI reconstruction,
// Q(x) = sum over k-space samples of |phi(k)|^2 * exp(i 2 pi k . x), for a trajectory of spiral
// samples and voxels on a grid. The device computes phi's magnitudes and Q (computeQ.cu); the
// host recomputes both in double for every 17th voxel and checks the relative error.
// Default: 3072 samples x 32768 voxels (Parboil's small data set; arguments: samples, voxels).
#include <cmath>
#include <vector>
#include "computeQ.h"
#include "../common/helpers.h"

int main(int argc, char **argv) {
    const int numK = sizeArg(argc, argv, 3072);
    const int numX = (argc > 2 ? atoi(argv[2]) : 32768) / KERNEL_Q_THREADS_PER_BLOCK * KERNEL_Q_THREADS_PER_BLOCK;
    std::vector<float> kx(numK), ky(numK), kz(numK), phiR(numK), phiI(numK), x(numX), y(numX), z(numX);
    Lcg rng(2718);
    for (int k = 0; k < numK; ++k) { // a stack of spirals in k-space, in cycles per field of view
        float t = float(k) / numK, turns = 16.f * t;
        kx[k] = 0.5f * t * cosf(2 * PI * turns);
        ky[k] = 0.5f * t * sinf(2 * PI * turns);
        kz[k] = 0.5f * (rng.uniform() - 0.5f);
        phiR[k] = rng.uniform() - 0.5f;
        phiI[k] = rng.uniform() - 0.5f;
    }
    const int side = int(cbrt(double(numX)) + 0.5);
    for (int i = 0; i < numX; ++i) { // voxels on a grid (64 units across), jittered
        x[i] = 64.f * ((i % side) / float(side) - 0.5f) + 0.01f * rng.uniform();
        y[i] = 64.f * ((i / side % side) / float(side) - 0.5f) + 0.01f * rng.uniform();
        z[i] = 64.f * ((i / side / side % side) / float(side) - 0.5f) + 0.01f * rng.uniform();
    }

    float *phiR_d, *phiI_d, *phiMag_d, *x_d, *y_d, *z_d, *Qr_d, *Qi_d;
    for (float **p : {&phiR_d, &phiI_d, &phiMag_d}) checkCudaErrors(cudaMalloc(p, numK * sizeof(float)));
    for (float **p : {&x_d, &y_d, &z_d, &Qr_d, &Qi_d}) checkCudaErrors(cudaMalloc(p, numX * sizeof(float)));
    checkCudaErrors(cudaMemcpy(phiR_d, phiR.data(), numK * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(phiI_d, phiI.data(), numK * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(x_d, x.data(), numX * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(y_d, y.data(), numX * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(z_d, z.data(), numX * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemset(Qr_d, 0, numX * sizeof(float)));
    checkCudaErrors(cudaMemset(Qi_d, 0, numX * sizeof(float)));

    computePhiMag_GPU(numK, phiR_d, phiI_d, phiMag_d);
    std::vector<float> phiMag(numK);
    checkCudaErrors(cudaMemcpy(phiMag.data(), phiMag_d, numK * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<kValues> kVals(numK);
    for (int k = 0; k < numK; ++k) kVals[k] = {kx[k], ky[k], kz[k], phiMag[k]};
    int launches = computeQ_GPU(numK, numX, x_d, y_d, z_d, kVals.data(), Qr_d, Qi_d);
    std::vector<float> Qr(numX), Qi(numX);
    checkCudaErrors(cudaMemcpy(Qr.data(), Qr_d, numX * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(Qi.data(), Qi_d, numX * sizeof(float), cudaMemcpyDeviceToHost));

    int phiWrong = 0;
    for (int k = 0; k < numK; ++k) { // the device may contract either product into an fma
        float r = phiR[k], i = phiI[k];
        phiWrong += phiMag[k] != r * r + i * i && phiMag[k] != fmaf(r, r, i * i) && phiMag[k] != fmaf(i, i, r * r);
    }
    double maxErr = 0, sumQr = 0, sumQi = 0, scale = 0;
    for (int k = 0; k < numK; ++k) scale += phiMag[k];
    for (int i = 0; i < numX; i += 17) {
        double qr = 0, qi = 0;
        for (int k = 0; k < numK; ++k) {
            double arg = 2 * M_PI * (double(kx[k]) * x[i] + double(ky[k]) * y[i] + double(kz[k]) * z[i]);
            qr += phiMag[k] * cos(arg);
            qi += phiMag[k] * sin(arg);
        }
        maxErr = std::fmax(maxErr, std::fmax(std::fabs(qr - Qr[i]), std::fabs(qi - Qi[i])) / scale);
    }
    for (int i = 0; i < numX; ++i) sumQr += Qr[i], sumQi += Qi[i];
    printf("%d k-space samples in %d constant-memory chunks, %d voxels\n", numK, launches, numX);
    printf("sum Qr %.3f, sum Qi %.3f, phiMag wrong %d, max error / sum |phi|^2 %s\n", sumQr, sumQi, phiWrong,
           maxErr < 1e-4 ? "< 1e-4" : "TOO LARGE");
    if (maxErr >= 1e-4) printf("max error %.3e\n", maxErr);
    for (float *p : {phiR_d, phiI_d, phiMag_d, x_d, y_d, z_d, Qr_d, Qi_d}) checkCudaErrors(cudaFree(p));
    return finish("mri_q", phiWrong == 0 && maxErr < 1e-4);
}
