// Breadth-first search (Rodinia style): frontier masks over a CSR graph, one kernel expanding
// the frontier and one promoting the newly visited nodes, until no node changes.
#include <queue>
#include <vector>
#include "../common/helpers.h"

__global__ void expand(const int *offsets, const int *edges, bool *frontier, bool *next, const bool *visited, int *cost, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && frontier[v]) {
        frontier[v] = false;
        for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
            int u = edges[e];
            if (!visited[u]) {
                cost[u] = cost[v] + 1;
                next[u] = true;
            }
        }
    }
}

__global__ void promote(bool *frontier, bool *next, bool *visited, bool *changed, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && next[v]) {
        frontier[v] = true;
        visited[v] = true;
        *changed = true;
        next[v] = false;
    }
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20), degree = 6;
    std::vector<int> offsets(n + 1), edges;
    Lcg rng(31);
    for (int v = 0; v < n; ++v) {
        offsets[v] = (int)edges.size();
        edges.push_back((v + 1) % n);  // a ring keeps the graph connected
        for (int k = 1; k < degree; ++k) edges.push_back(rng.next() % n);
    }
    offsets[n] = (int)edges.size();
    int *dOff, *dEdges, *dCost;
    bool *frontier, *next, *visited, *changed;
    checkCudaErrors(cudaMalloc(&dOff, (n + 1) * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dEdges, edges.size() * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dCost, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&frontier, n));
    checkCudaErrors(cudaMalloc(&next, n));
    checkCudaErrors(cudaMalloc(&visited, n));
    checkCudaErrors(cudaMallocHost(&changed, 1));
    checkCudaErrors(cudaMemcpy(dOff, offsets.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dEdges, edges.data(), edges.size() * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemset(frontier, 0, n));
    checkCudaErrors(cudaMemset(next, 0, n));
    checkCudaErrors(cudaMemset(visited, 0, n));
    checkCudaErrors(cudaMemset(dCost, 0xff, n * sizeof(int)));
    bool one = true;
    int zero = 0;
    checkCudaErrors(cudaMemcpy(frontier, &one, 1, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(visited, &one, 1, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dCost, &zero, sizeof(int), cudaMemcpyHostToDevice));
    int levels = 0;
    EventTimer timer;
    timer.start();
    do {
        *changed = false;
        expand<<<(n + 255) / 256, 256>>>(dOff, dEdges, frontier, next, visited, dCost, n);
        promote<<<(n + 255) / 256, 256>>>(frontier, next, visited, changed, n);
        checkCudaErrors(cudaDeviceSynchronize());
        ++levels;
    } while (*changed);
    float ms = timer.stop();
    std::vector<int> cost(n), ref(n, -1);
    checkCudaErrors(cudaMemcpy(cost.data(), dCost, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::queue<int> q;
    ref[0] = 0;
    q.push(0);
    while (!q.empty()) {
        int v = q.front();
        q.pop();
        for (int e = offsets[v]; e < offsets[v + 1]; ++e)
            if (ref[edges[e]] < 0) {
                ref[edges[e]] = ref[v] + 1;
                q.push(edges[e]);
            }
    }
    bool ok = cost == ref;
    printf("%d nodes, %d levels: %s\n", n, levels, ok ? "costs match the host" : "costs DIFFER");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(dOff));
    checkCudaErrors(cudaFree(dEdges));
    checkCudaErrors(cudaFree(dCost));
    checkCudaErrors(cudaFree(frontier));
    checkCudaErrors(cudaFree(next));
    checkCudaErrors(cudaFree(visited));
    checkCudaErrors(cudaFreeHost(changed));
    return finish("bfs_frontier", ok);
}
