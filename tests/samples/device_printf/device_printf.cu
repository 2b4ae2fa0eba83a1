// printf from the device: formatted integers, floats, strings and pointers-free values, from one
// thread per launch so the output order is the same on every device.
#include "../common/helpers.h"

__global__ void report(int step, const float *values) {
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        printf("step %d: block %d of %d says %s\n", step, blockIdx.x, gridDim.x, "hello");
        printf("  values: %.3f %.3f %e, hex %#x, char %c, long %lld\n", values[0], values[1], values[2], 255,
               'A' + step, -1234567890123ll);
    }
}

__global__ void reportWarp() {
    // Lanes of one warp print in lane order on GPUs; one line per lane from a single warp.
    if (threadIdx.x < 4) printf("lane %d of warp 0\n", threadIdx.x);
}

int main() {
    float *values;
    checkCudaErrors(cudaMallocManaged(&values, 3 * sizeof(float)));
    values[0] = 1.5f;
    values[1] = -2.25f;
    values[2] = 12345.678f;
    for (int step = 0; step < 3; ++step) {
        report<<<4, 64>>>(step, values);
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaDeviceSynchronize());
    }
    reportWarp<<<1, 32>>>();
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaFree(values));
    return finish("device_printf", true);
}
