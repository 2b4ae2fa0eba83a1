// Control: a warp-synchronous reduction in shared memory with __syncwarp; nothing to report.
#include "check.h"

__global__ void warp_sum(const int* in, int* out) {
    __shared__ int partial[32];
    int lane = threadIdx.x;
    partial[lane] = in[lane];
    __syncwarp();
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = lane < offset ? partial[lane + offset] : 0;
        __syncwarp();
        if (lane < offset) partial[lane] += other;
        __syncwarp();
    }
    if (lane == 0) *out = partial[0];
}

int main() {
    int *in, *out;
    int host[32];
    for (int i = 0; i < 32; i++) host[i] = i;
    cudaMalloc(&in, sizeof(host));
    cudaMalloc(&out, sizeof(int));
    cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
    warp_sum<<<1, 32>>>(in, out);
    int sum = 0;
    cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = report("ok_syncwarp", cudaGetLastError(), cudaDeviceSynchronize());
    printf("sum %d\n", sum);
    cudaFree(in);
    cudaFree(out);
    return ok && sum == 496 ? 0 : 1;
}
