// Cooperative groups: cg::tiled_partition (static and dynamic tiles), cg::reduce with
// cg::plus / cg::greater, thread_block_tile shuffles and votes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "../common/helpers.h"
namespace cg = cooperative_groups;

template <int TileSize>
__global__ void tileSums(const int *in, int *sums, int *maxima, int *anyNegative) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<TileSize> tile = cg::tiled_partition<TileSize>(block);
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[idx];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int mx = cg::reduce(tile, v, cg::greater<int>());
    bool neg = tile.any(v < 0);
    if (tile.thread_rank() == 0) {
        int t = idx / TileSize;
        sums[t] = sum;
        maxima[t] = mx;
        anyNegative[t] = neg;
    }
}

__global__ void dynamicTiles(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, 8);
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    tile.sync();
    // Each thread adds its tile's first element.
    int first = scratch[threadIdx.x - tile.thread_rank()];
    out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[threadIdx.x] + first;
}

template <int TileSize>
static bool checkTiles(const int *in, int n) {
    int tiles = n / TileSize, *sums, *maxima, *neg;
    checkCudaErrors(cudaMallocManaged(&sums, tiles * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&maxima, tiles * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&neg, tiles * sizeof(int)));
    tileSums<TileSize><<<n / 128, 128>>>(in, sums, maxima, neg);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int t = 0; t < tiles; ++t) {
        int s = 0, m = in[t * TileSize], ng = 0;
        for (int k = 0; k < TileSize; ++k) {
            int v = in[t * TileSize + k];
            s += v;
            m = v > m ? v : m;
            ng |= v < 0;
        }
        ok &= sums[t] == s && maxima[t] == m && neg[t] == ng;
    }
    printf("tile %2d: sum[0] = %d, max[0] = %d\n", TileSize, sums[0], maxima[0]);
    checkCudaErrors(cudaFree(sums));
    checkCudaErrors(cudaFree(maxima));
    checkCudaErrors(cudaFree(neg));
    return ok;
}

int main() {
    const int n = 1 << 16;
    int *in, *out;
    checkCudaErrors(cudaMallocManaged(&in, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&out, n * sizeof(int)));
    Lcg rng(3);
    for (int i = 0; i < n; ++i) in[i] = (int)(rng.next() % 2001) - 1000 + (i % 37 == 0 ? 0 : 1000);
    bool ok = checkTiles<4>(in, n) && checkTiles<16>(in, n) && checkTiles<32>(in, n);
    dynamicTiles<<<n / 256, 256, 256 * sizeof(int)>>>(in, out);
    checkCudaErrors(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) ok &= out[i] == in[i] + in[i - i % 8];
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("tiled_partition", ok);
}
