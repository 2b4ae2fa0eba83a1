// All-pairs shortest paths by blocked Floyd-Warshall, as GPU implementations tile it: for each
// 32 x 32 diagonal tile k, phase 1 closes the tile itself, phase 2 the tiles of row k and
// column k against it, phase 3 every other tile against its row and column tiles (three
// launches per round). The graph is sparse with random weights; a host Floyd-Warshall checks
// every distance exactly. Default: 1024 vertices (argument: the count, a multiple of 32).
#include <algorithm>
#include <vector>
#include "../common/helpers.h"

constexpr int TILE = 32;
constexpr int INF = 1 << 29; // INF + INF does not overflow

__global__ void fwPhase1(int *d, int n, int k) {
    __shared__ int t[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y, base = k * TILE;
    t[ty][tx] = d[(base + ty) * n + base + tx];
    __syncthreads();
    for (int m = 0; m < TILE; ++m) {
        int via = t[ty][m] + t[m][tx];
        __syncthreads();
        if (via < t[ty][tx]) t[ty][tx] = via;
        __syncthreads();
    }
    d[(base + ty) * n + base + tx] = t[ty][tx];
}

// blockIdx.y == 0: the tiles of row k; 1: the tiles of column k.
__global__ void fwPhase2(int *d, int n, int k) {
    if (blockIdx.x == k) return;
    __shared__ int diag[TILE][TILE], own[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y, base = k * TILE;
    const bool row = blockIdx.y == 0;
    const int r0 = row ? base : blockIdx.x * TILE, c0 = row ? blockIdx.x * TILE : base;
    diag[ty][tx] = d[(base + ty) * n + base + tx];
    own[ty][tx] = d[(r0 + ty) * n + c0 + tx];
    __syncthreads();
    for (int m = 0; m < TILE; ++m) {
        int via = row ? diag[ty][m] + own[m][tx] : own[ty][m] + diag[m][tx];
        __syncthreads();
        if (via < own[ty][tx]) own[ty][tx] = via;
        __syncthreads();
    }
    d[(r0 + ty) * n + c0 + tx] = own[ty][tx];
}

__global__ void fwPhase3(int *d, int n, int k) {
    if (blockIdx.x == k || blockIdx.y == k) return;
    __shared__ int colTile[TILE][TILE], rowTile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y, base = k * TILE;
    const int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
    colTile[ty][tx] = d[r * n + base + tx];
    rowTile[ty][tx] = d[(base + ty) * n + c];
    __syncthreads();
    int best = d[r * n + c];
#pragma unroll 8
    for (int m = 0; m < TILE; ++m) best = min(best, colTile[ty][m] + rowTile[m][tx]);
    d[r * n + c] = best;
}

int main(int argc, char **argv) {
    const int n = std::max(TILE, sizeArg(argc, argv, 1024) / TILE * TILE), tiles = n / TILE;
    std::vector<int> dist(size_t(n) * n, INF);
    Lcg rng(1234);
    int edges = 0;
    for (int v = 0; v < n; ++v) {
        dist[size_t(v) * n + v] = 0;
        for (int e = 0; e < 6; ++e) { // six out-edges each, plus a ring so every vertex is reachable
            int to = e == 0 ? (v + 1) % n : int(rng.next() % n);
            int w = 1 + int(rng.next() % 100) + (e == 0 ? 400 : 0);
            int &slot = dist[size_t(v) * n + to];
            if (to != v && w < slot) slot = w, ++edges;
        }
    }
    int *d;
    const size_t bytes = dist.size() * sizeof(int);
    checkCudaErrors(cudaMalloc(&d, bytes));
    checkCudaErrors(cudaMemcpy(d, dist.data(), bytes, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE);
    for (int k = 0; k < tiles; ++k) {
        fwPhase1<<<1, block>>>(d, n, k);
        checkCudaErrors(cudaGetLastError());
        fwPhase2<<<dim3(tiles, 2), block>>>(d, n, k);
        checkCudaErrors(cudaGetLastError());
        fwPhase3<<<dim3(tiles, tiles), block>>>(d, n, k);
        checkCudaErrors(cudaGetLastError());
    }
    std::vector<int> out(dist.size());
    checkCudaErrors(cudaMemcpy(out.data(), d, bytes, cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaFree(d));

    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            int dik = dist[size_t(i) * n + k];
            if (dik >= INF) continue;
            int *ri = &dist[size_t(i) * n];
            const int *rk = &dist[size_t(k) * n];
            for (int j = 0; j < n; ++j) ri[j] = std::min(ri[j], dik + rk[j]);
        }
    long long wrong = 0, total = 0;
    int diameter = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        wrong += out[i] != dist[i];
        total += out[i];
        diameter = std::max(diameter, out[i]);
    }
    printf("%d vertices, %d edges, %d rounds of 3 launches\n", n, edges, tiles);
    printf("sum of distances %lld, diameter %d, distances wrong %lld\n", total, diameter, wrong);
    return finish("floyd_warshall", wrong == 0);
}
