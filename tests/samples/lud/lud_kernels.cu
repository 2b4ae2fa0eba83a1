// The three kernels of Rodinia's blocked LU decomposition and the host loop launching them: for
// each 16x16 diagonal block, factor it (one block of 16 threads), solve the row and column
// panels right of and below it (32 threads per panel block), then update the trailing matrix
// (a 16x16 block per tile).
#include "lud.h"
#include "../common/helpers.h"

__global__ void lud_diagonal(float *m, int matrix_dim, int offset) {
    __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];
    int array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE; i++) {
        shadow[i][threadIdx.x] = m[array_offset + threadIdx.x];
        array_offset += matrix_dim;
    }
    __syncthreads();
    for (int i = 0; i < BLOCK_SIZE - 1; i++) {
        if (threadIdx.x > i) {
            for (int j = 0; j < i; j++) shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
            shadow[threadIdx.x][i] /= shadow[i][i];
        }
        __syncthreads();
        if (threadIdx.x > i) {
            for (int j = 0; j < i + 1; j++) shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
        }
        __syncthreads();
    }
    array_offset = (offset + 1) * matrix_dim + offset;
    for (int i = 1; i < BLOCK_SIZE; i++) {
        m[array_offset + threadIdx.x] = shadow[i][threadIdx.x];
        array_offset += matrix_dim;
    }
}

__global__ void lud_perimeter(float *m, int matrix_dim, int offset) {
    __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
    int array_offset, idx;
    if (threadIdx.x < BLOCK_SIZE) {
        idx = threadIdx.x;
        array_offset = offset * matrix_dim + offset;
        for (int i = 0; i < BLOCK_SIZE / 2; i++) {
            dia[i][idx] = m[array_offset + idx];
            array_offset += matrix_dim;
        }
        array_offset = offset * matrix_dim + offset;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            peri_row[i][idx] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx];
            array_offset += matrix_dim;
        }
    } else {
        idx = threadIdx.x - BLOCK_SIZE;
        array_offset = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
        for (int i = BLOCK_SIZE / 2; i < BLOCK_SIZE; i++) {
            dia[i][idx] = m[array_offset + idx];
            array_offset += matrix_dim;
        }
        array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            peri_col[i][idx] = m[array_offset + idx];
            array_offset += matrix_dim;
        }
    }
    __syncthreads();
    if (threadIdx.x < BLOCK_SIZE) { // the row panel: forward substitution with L
        idx = threadIdx.x;
        for (int i = 1; i < BLOCK_SIZE; i++)
            for (int j = 0; j < i; j++) peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
    } else { // the column panel: solve with U
        idx = threadIdx.x - BLOCK_SIZE;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            for (int j = 0; j < i; j++) peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
            peri_col[idx][i] /= dia[i][i];
        }
    }
    __syncthreads();
    if (threadIdx.x < BLOCK_SIZE) {
        idx = threadIdx.x;
        array_offset = (offset + 1) * matrix_dim + offset;
        for (int i = 1; i < BLOCK_SIZE; i++) {
            m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx] = peri_row[i][idx];
            array_offset += matrix_dim;
        }
    } else {
        idx = threadIdx.x - BLOCK_SIZE;
        array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
        for (int i = 0; i < BLOCK_SIZE; i++) {
            m[array_offset + idx] = peri_col[i][idx];
            array_offset += matrix_dim;
        }
    }
}

__global__ void lud_internal(float *m, int matrix_dim, int offset) {
    __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
    int global_row_id = offset + (blockIdx.y + 1) * BLOCK_SIZE;
    int global_col_id = offset + (blockIdx.x + 1) * BLOCK_SIZE;
    peri_row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x];
    peri_col[threadIdx.y][threadIdx.x] = m[(global_row_id + threadIdx.y) * matrix_dim + offset + threadIdx.x];
    __syncthreads();
    float sum = 0;
    for (int i = 0; i < BLOCK_SIZE; i++) sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
    m[(global_row_id + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x] -= sum;
}

int lud_cuda(float *m, int matrix_dim) {
    int i = 0, launches = 0;
    dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
    for (i = 0; i < matrix_dim - BLOCK_SIZE; i += BLOCK_SIZE) {
        lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
        checkCudaErrors(cudaGetLastError());
        lud_perimeter<<<(matrix_dim - i) / BLOCK_SIZE - 1, BLOCK_SIZE * 2>>>(m, matrix_dim, i);
        checkCudaErrors(cudaGetLastError());
        dim3 dimGrid((matrix_dim - i) / BLOCK_SIZE - 1, (matrix_dim - i) / BLOCK_SIZE - 1);
        lud_internal<<<dimGrid, dimBlock>>>(m, matrix_dim, i);
        checkCudaErrors(cudaGetLastError());
        launches += 3;
    }
    lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
    checkCudaErrors(cudaGetLastError());
    return launches + 1;
}
