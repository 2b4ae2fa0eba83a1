// Dynamic shared memory beyond 48 KiB: cudaFuncSetAttribute(MaxDynamicSharedMemorySize) and an
// extern __shared__ buffer holding a block's slice reversed.
#include "../common/helpers.h"

template <typename T>
__global__ void reverseBlocks(const T *in, T *out, int perBlock) {
    extern __shared__ unsigned char raw[];
    T *tile = reinterpret_cast<T *>(raw);
    const T *src = in + (size_t)blockIdx.x * perBlock;
    for (int i = threadIdx.x; i < perBlock; i += blockDim.x) tile[i] = src[i];
    __syncthreads();
    T *dst = out + (size_t)blockIdx.x * perBlock;
    for (int i = threadIdx.x; i < perBlock; i += blockDim.x) dst[i] = tile[perBlock - 1 - i];
}

int main() {
    const int blocks = 64;
    const int perBlock = 16384;  // 64 KiB of floats per block
    size_t smem = perBlock * sizeof(float);
    cudaDeviceProp prop;
    checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
    if (prop.sharedMemPerBlockOptin < smem) {
        printf("device offers only %zu bytes of shared memory per block\n", prop.sharedMemPerBlockOptin);
        return finish("dynamic_smem", false);
    }
    // Without the attribute the launch is refused.
    checkCudaErrors(cudaFuncSetAttribute(reverseBlocks<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    float *in, *out;
    checkCudaErrors(cudaMallocManaged(&in, blocks * perBlock * sizeof(float)));
    checkCudaErrors(cudaMallocManaged(&out, blocks * perBlock * sizeof(float)));
    for (int i = 0; i < blocks * perBlock; ++i) in[i] = (float)i;
    reverseBlocks<float><<<blocks, 256, smem>>>(in, out, perBlock);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaDeviceSynchronize());
    bool ok = true;
    for (int b = 0; b < blocks; ++b)
        for (int i = 0; i < perBlock; ++i)
            ok &= out[b * perBlock + i] == in[b * perBlock + perBlock - 1 - i];
    cudaFuncAttributes attr;
    checkCudaErrors(cudaFuncGetAttributes(&attr, reverseBlocks<float>));
    printf("max dynamic shared memory: %d bytes\n", attr.maxDynamicSharedSizeBytes);
    ok &= attr.maxDynamicSharedSizeBytes == (int)smem;
    checkCudaErrors(cudaFree(in));
    checkCudaErrors(cudaFree(out));
    return finish("dynamic_smem", ok);
}
