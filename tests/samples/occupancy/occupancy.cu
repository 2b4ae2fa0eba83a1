// Launch configuration from the occupancy API: cudaOccupancyMaxPotentialBlockSize, and the
// active blocks per multiprocessor it implies.
#include "../common/helpers.h"

__global__ void squareKernel(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * data[i];
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20);
    int minGrid = 0, blockSize = 0, perSm = 0;
    checkCudaErrors(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, squareKernel, 0, 0));
    checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, squareKernel, blockSize, 0));
    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
    bool ok = blockSize > 0 && blockSize <= prop.maxThreadsPerBlock && blockSize % prop.warpSize == 0
              && minGrid > 0 && perSm > 0;
    int *data;
    checkCudaErrors(cudaMallocManaged(&data, n * sizeof(int)));
    for (int i = 0; i < n; ++i) data[i] = i % 3000;
    squareKernel<<<(n + blockSize - 1) / blockSize, blockSize>>>(data, n);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) ok &= data[i] == (i % 3000) * (i % 3000);
    float occupancy = (float)(perSm * blockSize) / prop.maxThreadsPerMultiProcessor;
    printf("occupancy config: block %d, min grid %d, %d blocks/SM (time-independent: %s)\n",
           blockSize, minGrid, perSm, occupancy > 0 && occupancy <= 1 ? "valid" : "invalid");
    ok &= occupancy > 0 && occupancy <= 1;
    checkCudaErrors(cudaFree(data));
    return finish("occupancy", ok);
}
