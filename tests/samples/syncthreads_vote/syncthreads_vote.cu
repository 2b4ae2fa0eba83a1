// Block-wide votes: __syncthreads_count, __syncthreads_and, __syncthreads_or, and the warp votes
// __all_sync / __any_sync / __ballot_sync.
#include "../common/helpers.h"

__global__ void votes(const int *in, int *count, int *all, int *any, unsigned *ballots) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int c = __syncthreads_count(v > 0);
    int a = __syncthreads_and(v > 0);
    int o = __syncthreads_or(v > 100);
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    int warpAll = __all_sync(0xffffffffu, v >= 0), warpAny = __any_sync(0xffffffffu, v == 7);
    if (threadIdx.x == 0) {
        count[blockIdx.x] = c;
        all[blockIdx.x] = a;
        any[blockIdx.x] = o;
    }
    if ((threadIdx.x & 31) == 0) ballots[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = b ^ (warpAll << 1) ^ warpAny;
}

int main() {
    const int blocks = 64, threads = 256, n = blocks * threads;
    int *in, *count, *all, *any;
    unsigned *ballots;
    checkCudaErrors(cudaMallocManaged(&in, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&count, blocks * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&all, blocks * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&any, blocks * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&ballots, n / 32 * sizeof(unsigned)));
    Lcg rng(5);
    for (int i = 0; i < n; ++i) {
        int b = i / threads;
        // Block 0 all positive, block 1 none above 100, others random.
        in[i] = b == 0 ? 1 + (int)(rng.next() % 100) : b == 1 ? (int)(rng.next() % 50) : (int)(rng.next() % 300) - 100;
    }
    votes<<<blocks, threads>>>(in, count, all, any, ballots);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int b = 0; b < blocks; ++b) {
        int c = 0, a = 1, o = 0;
        for (int t = 0; t < threads; ++t) {
            int v = in[b * threads + t];
            c += v > 0;
            a &= v > 0;
            o |= v > 100;
        }
        ok &= count[b] == c && all[b] == a && any[b] == o;
    }
    for (int w = 0; w < n / 32; ++w) {
        unsigned bal = 0;
        int wAll = 1, wAny = 0;
        for (int l = 0; l < 32; ++l) {
            int v = in[w * 32 + l];
            bal |= (unsigned)(v & 1) << l;
            wAll &= v >= 0;
            wAny |= v == 7;
        }
        ok &= ballots[w] == (bal ^ (wAll << 1) ^ wAny);
    }
    printf("block 0: count %d and %d or %d; block 2: count %d\n", count[0], all[0], any[0], count[2]);
    return finish("syncthreads_vote", ok);
}
