// Bug: a packed byte stream read as ints at an offset that is not a multiple of 4.
#include "check.h"

__global__ void unpack(const char* bytes, int* out) {
    const int* words = reinterpret_cast<const int*>(bytes + 1);
    out[threadIdx.x] = words[threadIdx.x];  // expect: misaligned access
}

int main() {
    char* bytes;
    int* out;
    cudaMalloc(&bytes, 1024);
    cudaMalloc(&out, 32 * sizeof(int));
    cudaMemset(bytes, 1, 1024);
    unpack<<<1, 32>>>(bytes, out);
    report("misaligned", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(bytes);
    cudaFree(out);
    return 0;
}
