// Control: every thread that finds a negative value sets one shared flag to 1; they all
// write the same value, so whichever write lands the result is the same (a benign
// write-after-write, not reported); a barrier orders the flag's read.
#include "check.h"

__global__ void any_negative(const int* values, int* out) {
    __shared__ int found;
    if (threadIdx.x == 0) found = 0;
    __syncthreads();
    if (values[threadIdx.x] < 0) found = 1;
    __syncthreads();
    if (threadIdx.x == 0) *out = found;
}

int main() {
    int *values, *out;
    int host[128];
    for (int i = 0; i < 128; i++) host[i] = i % 3 == 0 ? -i : i;
    cudaMalloc(&values, sizeof(host));
    cudaMalloc(&out, sizeof(int));
    cudaMemcpy(values, host, sizeof(host), cudaMemcpyHostToDevice);
    any_negative<<<1, 128>>>(values, out);
    int found = 0;
    cudaMemcpy(&found, out, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = report("ok_race_same_value", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(values);
    cudaFree(out);
    return ok && found == 1 ? 0 : 1;
}
