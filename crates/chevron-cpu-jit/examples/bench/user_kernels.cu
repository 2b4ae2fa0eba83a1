// Kernels of the default-mode benchmark (scripts/bench-cpu-compiled.sh) beyond kernels.ptx, as
// a CUDA programmer writes them; the script compiles them to PTX with nvcc and runs each with
// `chevron run`. native_baseline.c holds the same algorithms in C.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Inclusive scan of each 1024-element tile: four elements per thread, then a Hillis-Steele
// scan of the 256 thread totals in shared memory.
extern "C" __global__ void tile_scan(const unsigned *in, unsigned *out) {
    __shared__ unsigned totals[256];
    unsigned t = threadIdx.x, base = blockIdx.x * 1024 + t * 4;
    unsigned a = in[base], b = a + in[base + 1], c = b + in[base + 2], d = c + in[base + 3];
    totals[t] = d;
    __syncthreads();
    for (unsigned offset = 1; offset < 256; offset <<= 1) {
        unsigned add = t >= offset ? totals[t - offset] : 0;
        __syncthreads();
        totals[t] += add;
        __syncthreads();
    }
    unsigned prefix = t ? totals[t - 1] : 0;
    out[base] = prefix + a;
    out[base + 1] = prefix + b;
    out[base + 2] = prefix + c;
    out[base + 3] = prefix + d;
}

// Sorts each 256-key tile: 32 stable one-bit splits, each placing keys by a shared-memory scan
// of their bits.
extern "C" __global__ void tile_radix_sort(unsigned *keys) {
    __shared__ unsigned tile[256];
    __shared__ unsigned ones[256];
    unsigned t = threadIdx.x, base = blockIdx.x * 256;
    tile[t] = keys[base + t];
    __syncthreads();
    for (unsigned bit = 0; bit < 32; ++bit) {
        unsigned key = tile[t], flag = (key >> bit) & 1;
        ones[t] = flag;
        __syncthreads();
        for (unsigned offset = 1; offset < 256; offset <<= 1) {
            unsigned add = t >= offset ? ones[t - offset] : 0;
            __syncthreads();
            ones[t] += add;
            __syncthreads();
        }
        unsigned ones_before = ones[t] - flag, zeros = 256 - ones[255];
        unsigned dst = flag ? zeros + ones_before : t - ones_before;
        __syncthreads();
        tile[dst] = key;
        __syncthreads();
    }
    keys[base + t] = tile[t];
}

// Sum of `n` values by a cooperative grid: grid-stride partial sums, a block tree, one
// partial per block, grid.sync(), and thread 0 of the grid adds the partials.
extern "C" __global__ void grid_sum(const unsigned *in, unsigned *partial, unsigned *out,
                                    unsigned n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned sums[256];
    unsigned sum = 0;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned offset = 128; offset > 0; offset >>= 1) {
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

// Transpose of an n x n matrix through a padded 32 x 33 shared tile (blocks of 32 x 8).
extern "C" __global__ void transpose(const float *in, float *out, unsigned n) {
    __shared__ float tile[32][33];
    unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (unsigned j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (unsigned j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
