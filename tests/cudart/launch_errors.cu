// The error codes of launches a device cannot run, as a program sees them from <<<>>> and
// cudaLaunchKernel: run natively and under chevron (built static and shared), the lines must
// be equal. Each line: the case, the launch's error, and cudaGetLastError after it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void mark(int* flag) { *flag = blockDim.x; }
__global__ void __launch_bounds__(128) bounded(int* flag) { *flag = blockDim.x; }
__global__ void dynamic_shared(int* flag) {
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = threadIdx.x;
    __syncthreads();
    *flag = scratch[0];
}

static void report(const char* name, cudaError_t launched) {
    cudaError_t last = cudaGetLastError();
    cudaError_t after = cudaGetLastError();
    std::printf("%-28s launch %-32s last %-32s then %s\n", name, cudaGetErrorName(launched),
                cudaGetErrorName(last), cudaGetErrorName(after));
}

int main() {
    int* flag = nullptr;
    if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return 2;
    struct Case { const char* name; dim3 grid, block; size_t shared; int kernel; };
    const Case cases[] = {
        {"block 2048", dim3(1), dim3(2048), 0, 0},
        {"block 64x32", dim3(1), dim3(64, 32), 0, 0},
        {"block z 65", dim3(1), dim3(1, 1, 65), 0, 0},
        {"block 0", dim3(1), dim3(0), 0, 0},
        {"grid y 70000", dim3(1, 70000), dim3(32), 0, 0},
        {"grid z 70000", dim3(1, 1, 70000), dim3(32), 0, 0},
        {"grid 0", dim3(0), dim3(32), 0, 0},
        {"launch bounds 128, 256", dim3(1), dim3(256), 0, 1},
        {"dynamic shared 64 KiB", dim3(1), dim3(32), 64 << 10, 2},
        {"dynamic shared 1 MiB", dim3(1), dim3(32), 1 << 20, 2},
    };
    void* kernels[] = {(void*)mark, (void*)bounded, (void*)dynamic_shared};
    for (const Case& c : cases) {
        if (c.kernel == 0) mark<<<c.grid, c.block, c.shared>>>(flag);
        else if (c.kernel == 1) bounded<<<c.grid, c.block, c.shared>>>(flag);
        else dynamic_shared<<<c.grid, c.block, c.shared>>>(flag);
        report(c.name, cudaPeekAtLastError());
        void* args[] = {&flag};
        cudaError_t direct = cudaLaunchKernel(kernels[c.kernel], c.grid, c.block, args, c.shared, 0);
        std::printf("  cudaLaunchKernel: ");
        report(c.name, direct);
    }
    report("null function", cudaLaunchKernel(nullptr, dim3(1), dim3(1), nullptr, 0, 0));
    mark<<<1, 96>>>(flag);
    int threads = 0;
    cudaError_t copied = cudaMemcpy(&threads, flag, sizeof threads, cudaMemcpyDeviceToHost);
    std::printf("valid launch afterwards: %s, %d threads\n", cudaGetErrorName(copied), threads);
    return 0;
}
