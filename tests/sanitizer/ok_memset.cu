// Control: a buffer set with cudaMemset, then read by a kernel; nothing to report.
#include "check.h"

__global__ void add_one(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1;
}

int main() {
    int n = 300;
    int *in, *out;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMemset(in, 0, n * sizeof(int));
    add_one<<<2, 256>>>(in, out, n);
    int host[300];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    bool ok = report("ok_memset", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return ok && host[0] == 1 && host[299] == 1 ? 0 : 1;
}
