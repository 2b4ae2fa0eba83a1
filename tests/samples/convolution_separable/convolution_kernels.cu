// Row and column convolution kernels: shared-memory tiles with halo (apron) loads, the filter
// taps in __constant__ memory.
#include "../common/helpers.h"
#include "convolution.h"

__constant__ float cKernel[KERNEL_LENGTH];

void setConvolutionKernel(const float *hostKernel) {
    checkCudaErrors(cudaMemcpyToSymbol(cKernel, hostKernel, KERNEL_LENGTH * sizeof(float)));
}

constexpr int ROW_X = 16, ROW_Y = 4, ROW_STEPS = 8, ROW_HALO = 1;
constexpr int COL_X = 16, COL_Y = 8, COL_STEPS = 8, COL_HALO = 1;

__global__ void rowsKernel(float *dst, const float *src, int width, int height, int pitch) {
    __shared__ float tile[ROW_Y][(ROW_STEPS + 2 * ROW_HALO) * ROW_X];
    int baseX = (blockIdx.x * ROW_STEPS - ROW_HALO) * ROW_X + threadIdx.x;
    int baseY = blockIdx.y * ROW_Y + threadIdx.y;
    src += baseY * pitch + baseX;
    dst += baseY * pitch + baseX;
#pragma unroll
    for (int s = 0; s < ROW_STEPS + 2 * ROW_HALO; ++s) {
        int x = baseX + s * ROW_X;
        tile[threadIdx.y][threadIdx.x + s * ROW_X] = x >= 0 && x < width ? src[s * ROW_X] : 0;
    }
    __syncthreads();
#pragma unroll
    for (int s = ROW_HALO; s < ROW_HALO + ROW_STEPS; ++s) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; ++j)
            sum += cKernel[KERNEL_RADIUS - j] * tile[threadIdx.y][threadIdx.x + s * ROW_X + j];
        dst[s * ROW_X] = sum;
    }
}

__global__ void columnsKernel(float *dst, const float *src, int width, int height, int pitch) {
    __shared__ float tile[COL_X][(COL_STEPS + 2 * COL_HALO) * COL_Y + 1];
    int baseX = blockIdx.x * COL_X + threadIdx.x;
    int baseY = (blockIdx.y * COL_STEPS - COL_HALO) * COL_Y + threadIdx.y;
    src += baseY * pitch + baseX;
    dst += baseY * pitch + baseX;
#pragma unroll
    for (int s = 0; s < COL_STEPS + 2 * COL_HALO; ++s) {
        int y = baseY + s * COL_Y;
        tile[threadIdx.x][threadIdx.y + s * COL_Y] = y >= 0 && y < height ? src[s * COL_Y * pitch] : 0;
    }
    __syncthreads();
#pragma unroll
    for (int s = COL_HALO; s < COL_HALO + COL_STEPS; ++s) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; ++j)
            sum += cKernel[KERNEL_RADIUS - j] * tile[threadIdx.x][threadIdx.y + s * COL_Y + j];
        dst[s * COL_Y * pitch] = sum;
    }
}

void convolutionRowsGPU(float *dst, const float *src, int width, int height) {
    dim3 blocks(width / (ROW_STEPS * ROW_X), height / ROW_Y), threads(ROW_X, ROW_Y);
    rowsKernel<<<blocks, threads>>>(dst, src, width, height, width);
    checkCudaErrors(cudaGetLastError());
}

void convolutionColumnsGPU(float *dst, const float *src, int width, int height) {
    dim3 blocks(width / COL_X, height / (COL_STEPS * COL_Y)), threads(COL_X, COL_Y);
    columnsKernel<<<blocks, threads>>>(dst, src, width, height, width);
    checkCudaErrors(cudaGetLastError());
}
