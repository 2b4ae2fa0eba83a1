// Bug: a warp-synchronous reduction without __syncwarp(): since Volta the lanes of a warp
// are not guaranteed to run in step, so a lane may read its partner's slot before the
// partner wrote it.
#include "check.h"

__global__ void warp_sum(const int* in, int* out) {
    __shared__ int partial[64];
    int lane = threadIdx.x;
    partial[lane] = in[lane];
    partial[lane + 32] = 0;
    for (int offset = 16; offset > 0; offset /= 2) {
        partial[lane] += partial[lane + offset];  // expect: shared-memory race
    }
    if (lane == 0) *out = partial[0];
}

int main() {
    int *in, *out;
    cudaMalloc(&in, 32 * sizeof(int));
    cudaMalloc(&out, sizeof(int));
    cudaMemset(in, 0, 32 * sizeof(int));
    warp_sum<<<1, 32>>>(in, out);
    report("race_warp_no_syncwarp", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(in);
    cudaFree(out);
    return 0;
}
