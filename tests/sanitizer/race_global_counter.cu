// Bug: one thread of every block increments a global counter with a plain read-modify-write
// instead of atomicAdd: blocks may read the same old value (a race between blocks).
#include "check.h"

__global__ void count_blocks(int* counter) {
    if (threadIdx.x == 0) {
        *counter = *counter + 1;  // expect: global-memory race
    }
}

int main() {
    int* counter;
    cudaMalloc(&counter, sizeof(int));
    cudaMemset(counter, 0, sizeof(int));
    count_blocks<<<8, 32>>>(counter);
    report("race_global_counter", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(counter);
    return 0;
}
