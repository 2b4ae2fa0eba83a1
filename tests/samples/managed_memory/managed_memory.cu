// Managed memory: a linked structure built by the host in cudaMallocManaged memory, walked by
// the device, results read by the host after synchronisation.
#include "../common/helpers.h"

struct Node {
    int value;
    Node *next;
};

__global__ void sumLists(Node **heads, int *sums, int lists) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= lists) return;
    int s = 0;
    for (Node *n = heads[i]; n; n = n->next) s += n->value;
    sums[i] = s;
}

__global__ void doubleAll(int *values, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        values[i] *= 2;
}

int main(int argc, char **argv) {
    int lists = sizeArg(argc, argv, 512), perList = 64;
    Node *nodes;
    Node **heads;
    int *sums;
    checkCudaErrors(cudaMallocManaged(&nodes, sizeof(Node) * lists * perList));
    checkCudaErrors(cudaMallocManaged(&heads, sizeof(Node *) * lists));
    checkCudaErrors(cudaMallocManaged(&sums, sizeof(int) * lists));
    for (int l = 0; l < lists; ++l) {
        heads[l] = &nodes[l * perList];
        for (int k = 0; k < perList; ++k) {
            Node &n = nodes[l * perList + k];
            n.value = l + k;
            n.next = k + 1 < perList ? &nodes[l * perList + k + 1] : nullptr;
        }
    }
    sumLists<<<(lists + 127) / 128, 128>>>(heads, sums, lists);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int l = 0; l < lists; ++l) ok &= sums[l] == l * perList + perList * (perList - 1) / 2;
    doubleAll<<<32, 128>>>(sums, lists);
    checkCudaErrors(cudaDeviceSynchronize());
    for (int l = 0; l < lists; ++l) ok &= sums[l] == 2 * (l * perList + perList * (perList - 1) / 2);
    printf("sums[0] = %d, sums[%d] = %d\n", sums[0], lists - 1, sums[lists - 1]);
    checkCudaErrors(cudaFree(nodes));
    checkCudaErrors(cudaFree(heads));
    checkCudaErrors(cudaFree(sums));
    return finish("managed_memory", ok);
}
