// sm_90 features: thread-block clusters and distributed shared memory.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange(const int *in, int *out)
{
    __shared__ int sm[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    sm[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    cluster.sync();
    int *peer = cluster.map_shared_rank(sm, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
    cluster.sync();
}

extern "C" __global__ void cluster_ids(unsigned *out)
{
    unsigned r, n;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    out[blockIdx.x] = r | n << 16;
}
