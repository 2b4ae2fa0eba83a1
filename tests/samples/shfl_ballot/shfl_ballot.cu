// The partial-mask warp reduction widely copied from CUDA's reduction sample: the last warp of a
// block that is not a multiple of 32 threads forms its mask with __ballot_sync and reduces with
// __shfl_down_sync over that mask; the other lanes have left. Also a full-mask
// __shfl_xor_sync butterfly and a __shfl_sync broadcast.
#include "../common/helpers.h"

__global__ void partialMaskReduce(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffffu, i < n);
    if (i < n) {
        int sum = in[i];
        // Source lanes outside the mask read nothing in the well-defined cases: lanes whose
        // source lane is past the last active lane keep adding only in-range values.
        int active = __popc(mask);
        int lane = threadIdx.x & 31;
        for (int offset = 16; offset > 0; offset >>= 1) {
            int other = __shfl_down_sync(mask, sum, offset);
            if (lane + offset < active) sum += other;
        }
        if (lane == 0) atomicAdd(out, sum);
    }
}

__global__ void butterflyAndBroadcast(const int *in, int *sums, int *leaders) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
    int leader = __shfl_sync(0xffffffffu, in[blockIdx.x * blockDim.x + threadIdx.x], 5);
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    sums[idx] = v;
    leaders[idx] = leader;
}

int main() {
    bool ok = true;
    const int sizes[] = {1, 17, 31, 32, 33, 100, 1000, 4099};
    for (int n : sizes) {
        int *in, *out;
        checkCudaErrors(cudaMallocManaged(&in, n * sizeof(int)));
        checkCudaErrors(cudaMallocManaged(&out, sizeof(int)));
        int expect = 0;
        for (int i = 0; i < n; ++i) expect += in[i] = i % 13 + 1;
        *out = 0;
        partialMaskReduce<<<(n + 63) / 64, 64>>>(in, out, n);
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaDeviceSynchronize());
        printf("n = %4d: sum %d (expected %d)\n", n, *out, expect);
        ok &= *out == expect;
        checkCudaErrors(cudaFree(in));
        checkCudaErrors(cudaFree(out));
    }
    const int m = 256;
    int *in, *sums, *leaders;
    checkCudaErrors(cudaMallocManaged(&in, m * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&sums, m * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&leaders, m * sizeof(int)));
    for (int i = 0; i < m; ++i) in[i] = i * 3 + 1;
    butterflyAndBroadcast<<<2, 128>>>(in, sums, leaders);
    checkCudaErrors(cudaDeviceSynchronize());
    for (int i = 0; i < m; ++i) {
        int warp = i / 32, s = 0;
        for (int k = 0; k < 32; ++k) s += in[warp * 32 + k];
        ok &= sums[i] == s && leaders[i] == in[warp * 32 + 5];
    }
    printf("butterfly sum of warp 0: %d\n", sums[0]);
    return finish("shfl_ballot", ok);
}
