// One k-means step (Rodinia style): assign each point to its nearest centroid (centroids in
// __constant__ memory), accumulate per-cluster sums with shared then global atomics, and
// compute new centroids; repeated a few iterations. Integer coordinates keep sums exact.
#include <vector>
#include "../common/helpers.h"

constexpr int K = 8, D = 4;
__constant__ float cCentroids[K * D];

__global__ void assignAndAccumulate(const float *points, int n, int *membership, float *sums, int *counts) {
    __shared__ float blockSums[K * D];
    __shared__ int blockCounts[K];
    for (int i = threadIdx.x; i < K * D; i += blockDim.x) blockSums[i] = 0;
    if (threadIdx.x < K) blockCounts[threadIdx.x] = 0;
    __syncthreads();
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        int best = 0;
        float bestDist = 3.4e38f;
        for (int c = 0; c < K; ++c) {
            float dist = 0;
            for (int d = 0; d < D; ++d) {
                float diff = points[p * D + d] - cCentroids[c * D + d];
                dist += diff * diff;
            }
            if (dist < bestDist) { bestDist = dist; best = c; }
        }
        membership[p] = best;
        for (int d = 0; d < D; ++d) atomicAdd(&blockSums[best * D + d], points[p * D + d]);
        atomicAdd(&blockCounts[best], 1);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < K * D; i += blockDim.x) atomicAdd(&sums[i], blockSums[i]);
    if (threadIdx.x < K) atomicAdd(&counts[threadIdx.x], blockCounts[threadIdx.x]);
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 18), iterations = 5;
    std::vector<float> points(n * D), centroids(K * D);
    Lcg rng(4);
    for (auto &v : points) v = (float)(rng.next() % 64);
    for (int c = 0; c < K; ++c)
        for (int d = 0; d < D; ++d) centroids[c * D + d] = points[c * 997 * D + d] + 0.5f;
    float *dPoints, *sums;
    int *membership, *counts;
    checkCudaErrors(cudaMalloc(&dPoints, n * D * sizeof(float)));
    checkCudaErrors(cudaMalloc(&membership, n * sizeof(int)));
    checkCudaErrors(cudaMallocManaged(&sums, K * D * sizeof(float)));
    checkCudaErrors(cudaMallocManaged(&counts, K * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dPoints, points.data(), n * D * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> hostCentroids = centroids;
    std::vector<int> hostMembership(n), got(n);
    bool ok = true;
    for (int it = 0; it < iterations; ++it) {
        checkCudaErrors(cudaMemcpyToSymbol(cCentroids, centroids.data(), K * D * sizeof(float)));
        checkCudaErrors(cudaMemset(sums, 0, K * D * sizeof(float)));
        checkCudaErrors(cudaMemset(counts, 0, K * sizeof(int)));
        assignAndAccumulate<<<(n + 255) / 256, 256>>>(dPoints, n, membership, sums, counts);
        checkCudaErrors(cudaDeviceSynchronize());
        checkCudaErrors(cudaMemcpy(got.data(), membership, n * sizeof(int), cudaMemcpyDeviceToHost));
        // Host step from the same centroids.
        std::vector<double> hostSums(K * D, 0);
        std::vector<int> hostCounts(K, 0);
        for (int p = 0; p < n; ++p) {
            int best = 0;
            float bestDist = 3.4e38f;
            for (int c = 0; c < K; ++c) {
                float dist = 0;
                for (int d = 0; d < D; ++d) {
                    float diff = points[p * D + d] - centroids[c * D + d];
                    dist += diff * diff;
                }
                if (dist < bestDist) { bestDist = dist; best = c; }
            }
            hostMembership[p] = best;
            for (int d = 0; d < D; ++d) hostSums[best * D + d] += points[p * D + d];
            hostCounts[best]++;
        }
        ok &= got == hostMembership;
        for (int c = 0; c < K; ++c) {
            ok &= counts[c] == hostCounts[c];
            for (int d = 0; d < D; ++d) {
                ok &= sums[c * D + d] == (float)hostSums[c * D + d];
                if (counts[c]) centroids[c * D + d] = sums[c * D + d] / counts[c];
            }
        }
        printf("iteration %d: cluster sizes %d %d %d %d %d %d %d %d\n", it, counts[0], counts[1], counts[2], counts[3],
               counts[4], counts[5], counts[6], counts[7]);
    }
    checkCudaErrors(cudaFree(dPoints));
    checkCudaErrors(cudaFree(membership));
    checkCudaErrors(cudaFree(sums));
    checkCudaErrors(cudaFree(counts));
    return finish("kmeans", ok);
}
