// MRI-Q (Parboil's mri-q): the k-space sample layout and the device passes.
#pragma once

#define PI 3.1415926535897932384626433832795029f
#define PIx2 6.2831853071795864769252867665590058f
#define KERNEL_PHI_MAG_THREADS_PER_BLOCK 512
#define KERNEL_Q_THREADS_PER_BLOCK 256
#define KERNEL_Q_K_ELEMS_PER_GRID 1024

struct kValues {
    float Kx, Ky, Kz, PhiMag;
};

// |phi|^2 of every k-space sample, on the device.
void computePhiMag_GPU(int numK, const float *phiR_d, const float *phiI_d, float *phiMag_d);
// Q at every voxel: the k-space samples go to constant memory 1024 at a time, one launch each.
// Returns the number of launches.
int computeQ_GPU(int numK, int numX, const float *x_d, const float *y_d, const float *z_d, const kValues *kVals,
                 float *Qr_d, float *Qi_d);
