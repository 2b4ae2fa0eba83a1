// Control: a kernel that uses exactly its static and dynamic shared memory, in a module whose
// other kernel has more; nothing to report.
#include "check.h"

__global__ void big(float* out) {
    __shared__ float scratch[1024];
    scratch[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = scratch[1023 - threadIdx.x];
}

__global__ void exact(float* out) {
    __shared__ float tile[64];
    extern __shared__ float rest[];
    tile[threadIdx.x] = threadIdx.x;
    rest[threadIdx.x] = 2.0f * threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[63 - threadIdx.x] + rest[63 - threadIdx.x];
}

int main() {
    float* out;
    cudaMalloc(&out, 1024 * sizeof(float));
    big<<<1, 1024>>>(out);
    exact<<<1, 64, 64 * sizeof(float)>>>(out);
    float host[64];
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
    bool ok = report("ok_shared_exact", cudaGetLastError(), cudaDeviceSynchronize());
    cudaFree(out);
    return ok && host[0] == 63.0f * 3 ? 0 : 1;
}
