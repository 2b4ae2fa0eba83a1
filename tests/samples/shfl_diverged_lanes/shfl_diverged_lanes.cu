// The warp reduction copied from many tutorials: the lanes holding data form their mask with
// __ballot_sync and reduce with __shfl_down_sync over that mask at every offset, reading lanes
// that have diverged away. PTX leaves such reads undefined; NVIDIA GPUs return 0 for them, which
// makes the sum right, and programs rely on it.
#include "../common/helpers.h"

__global__ void partialWarpSum(const int *in, int *out, int active) {
    int lane = threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffffu, lane < active);
    if (lane < active) {
        int sum = in[lane];
        for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(mask, sum, offset);
        if (lane == 0) *out = sum;
    }
}

int main() {
    int *in, *out;
    checkCudaErrors(cudaMallocManaged(&in, 32 * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&out, sizeof(int)));
    for (int i = 0; i < 32; ++i) in[i] = i + 1;
    bool ok = true;
    const int actives[] = {1, 5, 8, 13, 16, 31, 32};
    for (int active : actives) {
        *out = -1;
        partialWarpSum<<<1, 32>>>(in, out, active);
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaDeviceSynchronize());
        int expect = active * (active + 1) / 2;
        printf("%2d active lanes: sum %d (expected %d)\n", active, *out, expect);
        ok &= *out == expect;
    }
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("shfl_diverged_lanes", ok);
}
