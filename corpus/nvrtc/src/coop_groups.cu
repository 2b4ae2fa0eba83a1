// Cooperative groups: thread-block tiles and warp-level reductions as libraries emit them.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_reduce(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(warp, v, cg::plus<int>());
    if (warp.thread_rank() == 0) atomicAdd(out, s);
}

extern "C" __global__ void cg_tile16_max(const float *in, float *out)
{
    cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
    float v = in[threadIdx.x];
    for (int off = t.size() / 2; off > 0; off /= 2) v = fmaxf(v, t.shfl_down(v, off));
    if (t.thread_rank() == 0) out[threadIdx.x / 16] = v;
    t.sync();
}
