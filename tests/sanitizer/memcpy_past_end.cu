// Bug: a copy to the device of twice as many bytes as the allocation holds.
#include "check.h"
#include <vector>

int main() {
    std::vector<float> host(2048, 1.0f);
    float* data;
    cudaMalloc(&data, 1024 * sizeof(float));
    cudaError_t err = cudaMemcpy(data, host.data(), 2048 * sizeof(float), cudaMemcpyHostToDevice);  // expect: CUDA API error
    printf("memcpy_past_end: %s\n", cudaGetErrorName(err));
    cudaFree(data);
    return 0;
}
