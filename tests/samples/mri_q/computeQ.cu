// Parboil's mri-q kernels: the phase magnitudes, then Q accumulated over chunks of k-space
// samples held in __constant__ memory (cudaMemcpyToSymbol before each launch), each thread
// summing cosf/sinf terms for its voxel.
#include "computeQ.h"
#include "../common/helpers.h"

__constant__ __device__ kValues ck[KERNEL_Q_K_ELEMS_PER_GRID];

__global__ void ComputePhiMag_GPU(const float *phiR, const float *phiI, float *phiMag, int numK) {
    int indexK = blockIdx.x * KERNEL_PHI_MAG_THREADS_PER_BLOCK + threadIdx.x;
    if (indexK < numK) {
        float real = phiR[indexK], imag = phiI[indexK];
        phiMag[indexK] = real * real + imag * imag;
    }
}

__global__ void ComputeQ_GPU(int numK, int kGlobalIndex, const float *x, const float *y, const float *z, float *Qr,
                             float *Qi) {
    float sX, sY, sZ, sQr, sQi;
    int xIndex = blockIdx.x * KERNEL_Q_THREADS_PER_BLOCK + threadIdx.x;
    sX = x[xIndex];
    sY = y[xIndex];
    sZ = z[xIndex];
    sQr = Qr[xIndex];
    sQi = Qi[xIndex];
    int kIndex = 0;
    // Two samples per iteration, as Parboil unrolls it.
    if (numK % 2) {
        float expArg = PIx2 * (ck[0].Kx * sX + ck[0].Ky * sY + ck[0].Kz * sZ);
        sQr += ck[0].PhiMag * cosf(expArg);
        sQi += ck[0].PhiMag * sinf(expArg);
        kIndex++;
        kGlobalIndex++;
    }
    for (; (kIndex < KERNEL_Q_K_ELEMS_PER_GRID) && (kGlobalIndex < numK); kIndex += 2, kGlobalIndex += 2) {
        float expArg = PIx2 * (ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ);
        sQr += ck[kIndex].PhiMag * cosf(expArg);
        sQi += ck[kIndex].PhiMag * sinf(expArg);
        int kIndex1 = kIndex + 1;
        float expArg1 = PIx2 * (ck[kIndex1].Kx * sX + ck[kIndex1].Ky * sY + ck[kIndex1].Kz * sZ);
        sQr += ck[kIndex1].PhiMag * cosf(expArg1);
        sQi += ck[kIndex1].PhiMag * sinf(expArg1);
    }
    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}

void computePhiMag_GPU(int numK, const float *phiR_d, const float *phiI_d, float *phiMag_d) {
    int blocks = (numK + KERNEL_PHI_MAG_THREADS_PER_BLOCK - 1) / KERNEL_PHI_MAG_THREADS_PER_BLOCK;
    ComputePhiMag_GPU<<<blocks, KERNEL_PHI_MAG_THREADS_PER_BLOCK>>>(phiR_d, phiI_d, phiMag_d, numK);
    checkCudaErrors(cudaGetLastError());
}

int computeQ_GPU(int numK, int numX, const float *x_d, const float *y_d, const float *z_d, const kValues *kVals,
                 float *Qr_d, float *Qi_d) {
    int QGrids = (numK + KERNEL_Q_K_ELEMS_PER_GRID - 1) / KERNEL_Q_K_ELEMS_PER_GRID;
    int QBlocks = numX / KERNEL_Q_THREADS_PER_BLOCK;
    for (int QGrid = 0; QGrid < QGrids; QGrid++) {
        int QGridBase = QGrid * KERNEL_Q_K_ELEMS_PER_GRID;
        const kValues *kValsTile = kVals + QGridBase;
        int numElems = numK - QGridBase < KERNEL_Q_K_ELEMS_PER_GRID ? numK - QGridBase : KERNEL_Q_K_ELEMS_PER_GRID;
        checkCudaErrors(cudaMemcpyToSymbol(ck, kValsTile, numElems * sizeof(kValues), 0));
        ComputeQ_GPU<<<QBlocks, KERNEL_Q_THREADS_PER_BLOCK>>>(numK, QGridBase, x_d, y_d, z_d, Qr_d, Qi_d);
        checkCudaErrors(cudaGetLastError());
    }
    return QGrids;
}
