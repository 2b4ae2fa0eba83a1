// Thread-block clusters (sm_90) checked against host references: blocks of a cluster exchange
// distributed shared memory through cooperative_groups::this_cluster() (map_shared_rank and
// cluster.sync()), with the cluster given by __cluster_dims__ and by cudaLaunchKernelEx.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(err_));               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

// Each block reads its neighbour's shared memory (clusters of two, fixed at compile time).
__global__ void __cluster_dims__(2, 1, 1) neighbour(int *out) {
    __shared__ int slot[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    slot[threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
    cluster.sync();
    int *other = cluster.map_shared_rank(slot, (rank + 1) % cluster.num_blocks());
    int value = other[threadIdx.x];
    cluster.sync();  // the neighbour's shared memory stays until everyone has read it
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// Every thread of a cluster adds to a counter in the shared memory of the cluster's rank 0;
// thread 0 of each block reports the total and where its block sits in the cluster.
__global__ void gather(int *out) {
    extern __shared__ int counter[];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) counter[0] = 0;
    cluster.sync();
    int *root = cluster.map_shared_rank(counter, 0);
    atomicAdd(root, (int)rank + 1);
    cluster.sync();
    if (threadIdx.x == 0) {
        dim3 index = cluster.block_index(), dims = cluster.dim_blocks();
        int block = blockIdx.y * gridDim.x + blockIdx.x;
        out[4 * block] = root[0];
        out[4 * block + 1] = (int)rank;
        out[4 * block + 2] = (int)(index.x + 10 * index.y);
        out[4 * block + 3] = (int)(dims.x + 10 * dims.y + 100 * cluster.num_blocks());
    }
    cluster.sync();
}

int main() {
    int failures = 0;
    const int blocks = 8, threads = 64;
    int *d_out;
    CHECK(cudaMalloc(&d_out, blocks * threads * sizeof(int)));
    neighbour<<<blocks, threads>>>(d_out);
    CHECK(cudaGetLastError());
    int out[blocks * threads];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++)
            if (out[b * threads + t] != (b ^ 1) * 1000 + t && failures++ < 5)
                printf("neighbour: block %d thread %d read %d\n", b, t, out[b * threads + t]);

    // A 4 x 2 grid in clusters of 2 x 2 blocks, 32 threads each, from cudaLaunchKernelEx.
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(4, 2, 1);
    config.blockDim = dim3(32, 1, 1);
    config.dynamicSmemBytes = sizeof(int);
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = 2;
    attribute.val.clusterDim.y = 2;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, gather, d_out));
    int got[8 * 4];
    CHECK(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++) {
            int block = y * 4 + x;
            int rank = (x % 2) + 2 * y;  // x fastest within the cluster
            int want[4] = {32 * (1 + 2 + 3 + 4), rank, x % 2 + 10 * y, 2 + 10 * 2 + 100 * 4};
            for (int i = 0; i < 4; i++)
                if (got[4 * block + i] != want[i] && failures++ < 10)
                    printf("gather: block (%d, %d) value %d is %d, expected %d\n", x, y, i,
                           got[4 * block + i], want[i]);
        }

    // The device reports cluster launches, at least one 2 x 2 cluster of `gather` fits at once,
    // and clusters of CUDA's portable 8 blocks are possible (the driver's occupancy calculators
    // on GPUs, the CPU device's own answers).
    int clusterLaunch = 0, clusters = 0, largest = 0;
    CHECK(cudaDeviceGetAttribute(&clusterLaunch, cudaDevAttrClusterLaunch, 0));
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, (void *)gather, &config));
    CHECK(cudaOccupancyMaxPotentialClusterSize(&largest, (void *)gather, &config));
    if ((clusterLaunch != 1 || clusters < 1 || largest < 8) && failures++ < 10)
        printf("cudaDevAttrClusterLaunch %d, %d active 2 x 2 clusters, clusters of up to %d\n",
               clusterLaunch, clusters, largest);

    // A grid that is not a multiple of the cluster is refused.
    config.gridDim = dim3(3, 2, 1);
    cudaError_t refused = cudaLaunchKernelEx(&config, gather, d_out);
    if (refused == cudaSuccess) {
        printf("a 3 x 2 grid in clusters of 2 x 2 was accepted\n");
        failures++;
    }
    (void)cudaGetLastError();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d_out));
    if (failures) {
        printf("cluster_dsmem: %d failures\n", failures);
        return 1;
    }
    printf("cluster_dsmem: ok\n");
    return 0;
}
