// Device assert that holds: kernels check their invariants with assert() on every thread and
// the launch completes normally.
#include <cassert>
#include "../common/helpers.h"

__global__ void normalise(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(v[i] >= 0.0f);
        v[i] = sqrtf(v[i]);
        assert(v[i] * v[i] <= 1.0001f * (float)(i % 100) + 1e-6f);
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 16);
    float *v;
    checkCudaErrors(cudaMallocManaged(&v, n * sizeof(float)));
    for (int i = 0; i < n; ++i) v[i] = (float)(i % 100);
    normalise<<<(n + 255) / 256, 256>>>(v, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= fabsf(v[i] - sqrtf((float)(i % 100))) < 1e-6f;
    printf("sqrt(99) = %.4f\n", v[99]);
    checkCudaErrors(cudaFree(v));
    return finish("device_assert", ok);
}
