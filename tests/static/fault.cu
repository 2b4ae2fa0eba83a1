// A kernel that writes far out of bounds: the launch's error must be reported, naming the
// kernel under chevron.
#include <cstdio>
__global__ void scatter_out_of_bounds(int* v, int stride) { v[threadIdx.x * stride] = 1; }
int main() {
    int* dev;
    if (cudaMalloc(&dev, 64 * sizeof(int)) != cudaSuccess) return 2;
    scatter_out_of_bounds<<<1, 32>>>(dev, 1 << 26);
    cudaError_t err = cudaDeviceSynchronize();
    std::printf("fault: %s\n", err == cudaErrorIllegalAddress ? "cudaErrorIllegalAddress"
                                                                : cudaGetErrorName(err));
    return err == cudaSuccess;
}
