// A CUDA program whose embedded fatbin scripts/test.d/corrupt-binaries.sh damages after
// linking: it launches one kernel and prints the CUDA error code of the launch and of the
// synchronisation, and the result when both succeed. Intact, its last line is
// `corrupt_fatbin: ok 42`; damaged, `corrupt_fatbin: error N (cudaErrorName) from CALL`.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void answer(int *out) { *out = 42; }

static int report(const char *what, cudaError_t status)
{
    printf("corrupt_fatbin: error %d (%s) from %s\n", (int)status, cudaGetErrorName(status), what);
    return 1;
}

int main()
{
    int *out = nullptr;
    cudaError_t status = cudaMalloc(&out, sizeof(int));
    if (status != cudaSuccess) return report("cudaMalloc", status);
    answer<<<1, 1>>>(out);
    if ((status = cudaGetLastError()) != cudaSuccess) return report("launch", status);
    if ((status = cudaDeviceSynchronize()) != cudaSuccess) return report("synchronise", status);
    int value = 0;
    status = cudaMemcpy(&value, out, sizeof(int), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) return report("cudaMemcpy", status);
    printf("corrupt_fatbin: ok %d\n", value);
    return 0;
}
