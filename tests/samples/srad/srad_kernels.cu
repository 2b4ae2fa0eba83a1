// Rodinia's two SRAD kernels, each loading a 16x16 tile of the image with its halo rows and
// columns into shared memory (clamped at the image's edges), and a reduction of the region of
// interest's statistics in double (a shared-memory tree per block).
#include "srad.h"
#include "../common/helpers.h"

__global__ void srad_cuda_1(float *E_C, float *W_C, float *N_C, float *S_C, const float *J_cuda, float *C_cuda,
                            int cols, int rows, float q0sqr) {
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int index = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
    __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float north[BLOCK_SIZE], south[BLOCK_SIZE], east[BLOCK_SIZE], west[BLOCK_SIZE];
    temp[ty][tx] = J_cuda[index];
    if (ty == 0) north[tx] = by == 0 ? J_cuda[index] : J_cuda[index - cols];
    if (ty == BLOCK_SIZE - 1) south[tx] = by == gridDim.y - 1 ? J_cuda[index] : J_cuda[index + cols];
    if (tx == 0) west[ty] = bx == 0 ? J_cuda[index] : J_cuda[index - 1];
    if (tx == BLOCK_SIZE - 1) east[ty] = bx == gridDim.x - 1 ? J_cuda[index] : J_cuda[index + 1];
    __syncthreads();
    float jc = temp[ty][tx];
    float n = ty == 0 ? north[tx] : temp[ty - 1][tx];
    float s = ty == BLOCK_SIZE - 1 ? south[tx] : temp[ty + 1][tx];
    float w = tx == 0 ? west[ty] : temp[ty][tx - 1];
    float e = tx == BLOCK_SIZE - 1 ? east[ty] : temp[ty][tx + 1];
    n -= jc;
    s -= jc;
    w -= jc;
    e -= jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = (0.5 * g2) - ((1.0 / 16.0) * (l * l));
    float den = 1 + (.25 * l);
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
    float c = 1.0 / (1.0 + den);
    if (c < 0) c = 0;
    else if (c > 1) c = 1;
    C_cuda[index] = c;
    E_C[index] = e;
    W_C[index] = w;
    S_C[index] = s;
    N_C[index] = n;
}

__global__ void srad_cuda_2(const float *E_C, const float *W_C, const float *N_C, const float *S_C, float *J_cuda,
                            const float *C_cuda, int cols, int rows, float lambda) {
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int index = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
    __shared__ float c_tile[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float south_c[BLOCK_SIZE], east_c[BLOCK_SIZE];
    c_tile[ty][tx] = C_cuda[index];
    if (ty == BLOCK_SIZE - 1) south_c[tx] = by == gridDim.y - 1 ? C_cuda[index] : C_cuda[index + cols];
    if (tx == BLOCK_SIZE - 1) east_c[ty] = bx == gridDim.x - 1 ? C_cuda[index] : C_cuda[index + 1];
    __syncthreads();
    float cc = c_tile[ty][tx];
    float cS = ty == BLOCK_SIZE - 1 ? south_c[tx] : c_tile[ty + 1][tx];
    float cE = tx == BLOCK_SIZE - 1 ? east_c[ty] : c_tile[ty][tx + 1];
    float d_sum = cc * N_C[index] + cS * S_C[index] + cc * W_C[index] + cE * E_C[index];
    J_cuda[index] = J_cuda[index] + 0.25 * lambda * d_sum;
}

__global__ void roi_reduce(const float *J, int cols, Roi roi, double *partial) {
    __shared__ double s1[kReduceThreads], s2[kReduceThreads];
    int width = roi.c2 - roi.c1 + 1, count = width * (roi.r2 - roi.r1 + 1);
    double a = 0, b = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        double v = J[(roi.r1 + k / width) * cols + roi.c1 + k % width];
        a += v;
        b += v * v;
    }
    s1[threadIdx.x] = a;
    s2[threadIdx.x] = b;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            s1[threadIdx.x] += s1[threadIdx.x + stride];
            s2[threadIdx.x] += s2[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[2 * blockIdx.x] = s1[0];
        partial[2 * blockIdx.x + 1] = s2[0];
    }
}

void roi_statistics(const Image &img, Roi roi, double *sum, double *sum2) {
    roi_reduce<<<kReduceBlocks, kReduceThreads>>>(img.J, img.cols, roi, img.partial);
    checkCudaErrors(cudaGetLastError());
    double host[2 * kReduceBlocks];
    checkCudaErrors(cudaMemcpy(host, img.partial, sizeof host, cudaMemcpyDeviceToHost));
    *sum = *sum2 = 0;
    for (int b = 0; b < kReduceBlocks; ++b) {
        *sum += host[2 * b];
        *sum2 += host[2 * b + 1];
    }
}

void srad_step(const Image &img, float q0sqr, float lambda) {
    dim3 threads(BLOCK_SIZE, BLOCK_SIZE), grid(img.cols / BLOCK_SIZE, img.rows / BLOCK_SIZE);
    srad_cuda_1<<<grid, threads>>>(img.dE, img.dW, img.dN, img.dS, img.J, img.C, img.cols, img.rows, q0sqr);
    checkCudaErrors(cudaGetLastError());
    srad_cuda_2<<<grid, threads>>>(img.dE, img.dW, img.dN, img.dS, img.J, img.C, img.cols, img.rows, lambda);
    checkCudaErrors(cudaGetLastError());
}
