// Kernels of tests/grid_sync_compiled.rs: cooperative grids that synchronise with
// cooperative_groups' grid.sync(). grid_sync.ptx is this file compiled by
//   nvcc -ptx -O3 -arch=sm_75 -o grid_sync.ptx grid_sync.cu   (CUDA 13.0)
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// `rounds` rounds: each block adds its right neighbour's value of the last round to its own,
// with a grid barrier between reading and writing; a barrier that lets a block through early
// reads a value of the wrong round.
extern "C" __global__ void neighbour_rounds(unsigned *values, unsigned *scratch,
                                            unsigned rounds) {
    cg::grid_group grid = cg::this_grid();
    unsigned blocks = gridDim.x, me = blockIdx.x;
    for (unsigned r = 0; r < rounds; ++r) {
        unsigned right = values[(me + 1) % blocks];
        grid.sync();
        if (threadIdx.x == 0) scratch[me] = values[me] * 3 + right + r;
        grid.sync();
        if (threadIdx.x == 0) values[me] = scratch[me];
        grid.sync();
    }
}

// Every thread counts itself in; after the barrier the last block's thread 0 writes
// `counts[limit]`: past the buffer when `limit` is its length (a fault after the barrier).
extern "C" __global__ void count_then_store(unsigned *counts, unsigned limit) {
    cg::grid_group grid = cg::this_grid();
    atomicAdd(&counts[0], 1);
    grid.sync();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) counts[limit] = counts[0];
}

// The benchmark's cooperative reduction (examples/bench/user_kernels.cu): a grid-stride loop
// with a 64-bit index (four-wide: consecutive threads read consecutive words), a shared tree,
// the grid barrier, then one thread adds the blocks' partial sums.
extern "C" __global__ void grid_sum(const unsigned *in, unsigned *partial, unsigned *out,
                                    unsigned n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned sums[256];
    unsigned sum = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned offset = blockDim.x / 2; offset > 0; offset >>= 1) {
        if (threadIdx.x < offset) sums[threadIdx.x] += sums[threadIdx.x + offset];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
    grid.sync();
    if (grid.thread_rank() == 0) {
        unsigned total = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
        *out = total;
    }
}
