// Bug: a buffer freed twice; the second cudaFree fails (compute-sanitizer reports the API
// error).
#include "check.h"

__global__ void touch(int* data) { data[threadIdx.x] = threadIdx.x; }

int main() {
    int* data;
    cudaMalloc(&data, 32 * sizeof(int));
    touch<<<1, 32>>>(data);
    report("double_free", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(data);
    cudaError_t again = cudaFree(data);  // expect: CUDA API error
    printf("second free: %s\n", cudaGetErrorName(again));
    return 0;
}
