// Half-precision dot product with half2 intrinsics (__hmul2, __hadd2) from pinned buffers; each
// thread accumulates a few products in half2, the block reduces in float. Values are small
// integers, so every half operation is exact and the float sum is exact.
#include <cuda_fp16.h>
#include "../common/helpers.h"

__global__ void dotHalf2(const half2 *a, const half2 *b, float *result, int n2) {
    __shared__ float partial[256];
    half2 acc = __float2half2_rn(0.0f);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x)
        acc = __hadd2(acc, __hmul2(a[i], b[i]));
    partial[threadIdx.x] = __low2float(acc) + __high2float(acc);
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 20), n2 = n / 2;
    half2 *a, *b;
    float *result;
    checkCudaErrors(cudaMallocHost(&a, n2 * sizeof(half2)));
    checkCudaErrors(cudaMallocHost(&b, n2 * sizeof(half2)));
    checkCudaErrors(cudaMallocHost(&result, sizeof(float)));
    double expect = 0;
    for (int i = 0; i < n2; ++i) {
        float x0 = (float)(i % 5 - 2), x1 = (float)(i % 3), y0 = (float)(i % 4 - 1), y1 = (float)(i % 7 - 3);
        a[i] = __floats2half2_rn(x0, x1);
        b[i] = __floats2half2_rn(y0, y1);
        expect += x0 * y0 + x1 * y1;
    }
    half2 *da, *db;
    float *dr;
    checkCudaErrors(cudaMalloc(&da, n2 * sizeof(half2)));
    checkCudaErrors(cudaMalloc(&db, n2 * sizeof(half2)));
    checkCudaErrors(cudaMalloc(&dr, sizeof(float)));
    checkCudaErrors(cudaMemcpyAsync(da, a, n2 * sizeof(half2), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpyAsync(db, b, n2 * sizeof(half2), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemsetAsync(dr, 0, sizeof(float)));
    // 64 blocks x 256 threads: each thread sums n2 / 16384 products, at most 2 * 6 * 64 in
    // magnitude, exact in half.
    dotHalf2<<<64, 256>>>(da, db, dr, n2);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpyAsync(result, dr, sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaDeviceSynchronize());
    printf("dot = %.1f (expected %.1f)\n", *result, expect);
    bool ok = *result == (float)expect;
    checkCudaErrors(cudaFreeHost(a));
    checkCudaErrors(cudaFreeHost(b));
    checkCudaErrors(cudaFreeHost(result));
    checkCudaErrors(cudaFree(da));
    checkCudaErrors(cudaFree(db));
    checkCudaErrors(cudaFree(dr));
    return finish("half_dot", ok);
}
