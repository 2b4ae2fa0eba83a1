// The distributed-shared-memory histogram of the CUDA programming guide: a cluster's blocks split
// the bins between their shared memories, every thread adds to the block that owns its bin through
// cluster.map_shared_rank, and each block merges its part into the global bins. Launched with
// cudaLaunchKernelEx and a cluster-dimension attribute (and the maximum dynamic shared memory
// raised with cudaFuncSetAttribute, the occupancy of clusters asked with
// cudaOccupancyMaxActiveClusters and cudaOccupancyMaxPotentialClusterSize) on devices reporting
// cudaDevAttrClusterLaunch; built below sm_90 (nvcc's default architecture), the kernel falls back
// to per-block shared bins over the whole range, as code that must also run on older GPUs does.
// Cluster sizes 1, 2 and 4, bins over a clamped normal distribution; event timing is reported as
// "ok" only.
// Default: 2^22 values, 2048 bins (arguments: values, bins).
#include <algorithm>
#include <cooperative_groups.h>
#include <vector>
#include "../common/helpers.h"
namespace cg = cooperative_groups;

__global__ void clusterHist_kernel(int *bins, const int nbins, const int bins_per_block, const int *__restrict__ input,
                                   size_t array_size) {
    extern __shared__ int smem[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    int tid = cg::this_grid().thread_rank();
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
    cluster.sync(); // every block's part is zero before anyone adds to it
    for (size_t i = tid; i < array_size; i += blockDim.x * gridDim.x) {
        int ldata = input[i];
        int binid = ldata < 0 ? 0 : (ldata >= nbins ? nbins - 1 : ldata);
        int dst_block_rank = binid / bins_per_block, dst_offset = binid % bins_per_block;
        int *dst_smem = cluster.map_shared_rank(smem, dst_block_rank);
        atomicAdd(dst_smem + dst_offset, 1);
    }
    cluster.sync(); // no block leaves while others may still add to its shared memory
    int *lbins = bins + cluster.block_rank() * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
#else
    // No clusters: each block counts values of its own bin range (the part the cluster's block
    // of this rank would own), reading its cluster's share of the input.
    const int clusterSize = nbins / bins_per_block, rank = blockIdx.x % clusterSize;
    const int lo = rank * bins_per_block;
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) smem[i] = 0;
    __syncthreads();
    const size_t clusterThreads = size_t(blockDim.x) * clusterSize;
    const size_t first = size_t(blockIdx.x / clusterSize) * clusterThreads, stride = size_t(blockDim.x) * gridDim.x;
    for (size_t base = first; base < array_size; base += stride)
        for (size_t i = base + threadIdx.x; i < base + clusterThreads && i < array_size; i += blockDim.x) {
            int ldata = input[i];
            int binid = ldata < 0 ? 0 : (ldata >= nbins ? nbins - 1 : ldata);
            if (binid >= lo && binid < lo + bins_per_block) atomicAdd(&smem[binid - lo], 1);
        }
    __syncthreads();
    for (int i = threadIdx.x; i < bins_per_block; i += blockDim.x) atomicAdd(&bins[lo + i], smem[i]);
#endif
}

int main(int argc, char **argv) {
    const size_t array_size = size_t(sizeArg(argc, argv, 1 << 22));
    const int nbins = argc > 2 ? atoi(argv[2]) : 2048, threads_per_block = 256;
    std::vector<int> input(array_size), ref(nbins, 0);
    Lcg rng(11);
    for (auto &v : input) { // a sum of four uniforms, centred and scaled past the ends
        float s = rng.uniform() + rng.uniform() + rng.uniform() + rng.uniform() - 2.f;
        v = int(nbins / 2 + s * nbins * 0.3f);
        ++ref[v < 0 ? 0 : (v >= nbins ? nbins - 1 : v)];
    }
    int *dInput, *dBins;
    checkCudaErrors(cudaMalloc(&dInput, array_size * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dBins, nbins * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dInput, input.data(), array_size * sizeof(int), cudaMemcpyHostToDevice));
    int device = 0, clusterLaunch = 0;
    checkCudaErrors(cudaGetDevice(&device));
    checkCudaErrors(cudaDeviceGetAttribute(&clusterLaunch, cudaDevAttrClusterLaunch, device));

    bool ok = true;
    EventTimer timer;
    for (int cluster_size : {1, 2, 4}) {
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(128);
        config.blockDim = dim3(threads_per_block);
        const int nbins_per_block = nbins / cluster_size;
        config.dynamicSmemBytes = nbins_per_block * sizeof(int);
        checkCudaErrors(cudaFuncSetAttribute((void *)clusterHist_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             int(config.dynamicSmemBytes)));
        cudaLaunchAttribute attribute[1];
        attribute[0].id = cudaLaunchAttributeClusterDimension;
        attribute[0].val.clusterDim.x = cluster_size;
        attribute[0].val.clusterDim.y = 1;
        attribute[0].val.clusterDim.z = 1;
        config.numAttrs = clusterLaunch ? 1 : 0;
        config.attrs = attribute;
        if (clusterLaunch) {
            int clusters = 0, largest = 0;
            checkCudaErrors(cudaOccupancyMaxActiveClusters(&clusters, (void *)clusterHist_kernel, &config));
            checkCudaErrors(cudaOccupancyMaxPotentialClusterSize(&largest, (void *)clusterHist_kernel, &config));
            ok &= clusters > 0 && largest >= cluster_size;
        }
        checkCudaErrors(cudaMemset(dBins, 0, nbins * sizeof(int)));
        timer.start();
        checkCudaErrors(cudaLaunchKernelEx(&config, clusterHist_kernel, dBins, nbins, nbins_per_block,
                                           (const int *)dInput, array_size));
        float ms = timer.stop();
        std::vector<int> bins(nbins);
        checkCudaErrors(cudaMemcpy(bins.data(), dBins, nbins * sizeof(int), cudaMemcpyDeviceToHost));
        int wrong = 0;
        long long total = 0;
        for (int b = 0; b < nbins; ++b) wrong += bins[b] != ref[b], total += bins[b];
        printf("cluster size %d, %d bins per block: %lld values counted, %d bins wrong, bin %d holds %d, time %s\n",
               cluster_size, nbins_per_block, total, wrong, nbins / 2, bins[nbins / 2], ms >= 0 ? "ok" : "?");
        ok &= wrong == 0;
    }
    checkCudaErrors(cudaFree(dInput));
    checkCudaErrors(cudaFree(dBins));
    return finish("cluster_histogram", ok);
}
