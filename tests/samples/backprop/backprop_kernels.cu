// Rodinia's two backprop kernels: the input-to-hidden forward pass, each block multiplying 16
// inputs by their 16 x 16 weights and reducing the rows in shared memory with a tree whose
// steps come from __log2f / __powf, and the weight adjustment with momentum.
#include "backprop.h"
#include "../common/helpers.h"

__global__ void bpnn_layerforward(const float *input, const float *weights, float *partial, int in, int hid) {
    int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_in = HEIGHT * by + ty + 1;
    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];
    if (tx == 0) input_node[ty] = input[index_in];
    __syncthreads();
    weight_matrix[ty][tx] = weights[index];
    __syncthreads();
    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
    __syncthreads();
    for (int i = 1; i <= __log2f(HEIGHT); i++) {
        int power_two = __powf(2, i);
        if (ty % power_two == 0) weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
        __syncthreads();
    }
    if (ty == 0) partial[by * hid + tx] = weight_matrix[0][tx];
}

__global__ void bpnn_adjust_weights(const float *delta, int hid, const float *ly, int in, float *w, float *oldw) {
    int by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    int index_y = HEIGHT * by + ty + 1;
    int index_x = tx + 1;
    w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
    oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
    __syncthreads();
    if (ty == 0 && by == 0) {
        w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
        oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    }
}

void layerforward(const Net &d, float *partial) {
    dim3 grid(1, d.in / HEIGHT), threads(WIDTH, HEIGHT);
    bpnn_layerforward<<<grid, threads>>>(d.input, d.hidden_weights, partial, d.in, d.hid);
    checkCudaErrors(cudaGetLastError());
}

void adjust_weights(const Net &d, const float *delta) {
    dim3 grid(1, d.in / HEIGHT), threads(WIDTH, HEIGHT);
    bpnn_adjust_weights<<<grid, threads>>>(delta, d.hid, d.input, d.in, d.hidden_weights, d.hidden_prev);
    checkCudaErrors(cudaGetLastError());
}
