// Control: memory first written by one kernel and read by the next; nothing to report.
#include "check.h"

__global__ void produce(int* data) { data[threadIdx.x] = 3 * threadIdx.x; }

__global__ void consume(const int* data, int* out) {
    out[threadIdx.x] = data[threadIdx.x] + data[(threadIdx.x + 1) % 64];
}

int main() {
    int *data, *out;
    cudaMalloc(&data, 64 * sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    produce<<<1, 64>>>(data);
    consume<<<1, 64>>>(data, out);
    int host[64];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    bool ok = report("ok_kernel_written", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(data);
    cudaFree(out);
    return ok && host[0] == 3 ? 0 : 1;
}
