// HotSpot (Rodinia's hotspot): transient thermal simulation of a chip. Each 16x16 block loads
// its tile with a halo into shared memory and runs `pyramid` time steps there before writing
// the inner (16 - 2 * pyramid)^2 cells back, so neighbouring blocks overlap; the stencil mixes
// float cells with double constants (2.0), as Rodinia's does. A host simulation step by step,
// with the same edge rule (a missing neighbour is the cell itself), checks every cell.
// Default: 512 x 512 cells (Rodinia's temp_512), pyramid height 2, 60 steps (arguments: size, pyramid, steps).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

#define BLOCK_SIZE 16
#define MAX_PD (3.0e6)
#define PRECISION 0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
#define FACTOR_CHIP 0.5
#define EXPAND_RATE 2
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

static const float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f, amb_temp = 80.0f;

__global__ void calculate_temp(int iteration, const float *power, const float *temp_src, float *temp_dst,
                               int grid_cols, int grid_rows, int border_cols, int border_rows, float Cap,
                               float Rx, float Ry, float Rz, float step) {
    __shared__ float temp_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float power_on_cuda[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float temp_t[BLOCK_SIZE][BLOCK_SIZE];
    float amb_temp = 80.0;
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    float step_div_Cap = step / Cap;
    float Rx_1 = 1 / Rx, Ry_1 = 1 / Ry, Rz_1 = 1 / Rz;
    int small_block_rows = BLOCK_SIZE - iteration * 2;
    int small_block_cols = BLOCK_SIZE - iteration * 2;
    int blkY = small_block_rows * by - border_rows;
    int blkX = small_block_cols * bx - border_cols;
    int blkYmax = blkY + BLOCK_SIZE - 1;
    int blkXmax = blkX + BLOCK_SIZE - 1;
    int yidx = blkY + ty, xidx = blkX + tx;
    int index = grid_cols * yidx + xidx;
    if (IN_RANGE(yidx, 0, grid_rows - 1) && IN_RANGE(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();
    int validYmin = (blkY < 0) ? -blkY : 0;
    int validYmax = (blkYmax > grid_rows - 1) ? BLOCK_SIZE - 1 - (blkYmax - grid_rows + 1) : BLOCK_SIZE - 1;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > grid_cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - grid_cols + 1) : BLOCK_SIZE - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < validYmin) ? validYmin : N;
    S = (S > validYmax) ? validYmax : S;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && IN_RANGE(ty, i + 1, BLOCK_SIZE - i - 2) &&
            IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
            computed = true;
            temp_t[ty][tx] = temp_on_cuda[ty][tx] +
                             step_div_Cap * (power_on_cuda[ty][tx] +
                                             (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0 * temp_on_cuda[ty][tx]) * Ry_1 +
                                             (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0 * temp_on_cuda[ty][tx]) * Rx_1 +
                                             (amb_temp - temp_on_cuda[ty][tx]) * Rz_1);
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed) temp_dst[index] = temp_t[ty][tx];
}

int main(int argc, char **argv) {
    const int size = sizeArg(argc, argv, 512);
    const int pyramid = argc > 2 ? atoi(argv[2]) : 2, total = argc > 3 ? atoi(argv[3]) : 60;
    const int rows = size, cols = size;
    const int borderCols = pyramid * EXPAND_RATE / 2, borderRows = pyramid * EXPAND_RATE / 2;
    const int smallBlockCol = BLOCK_SIZE - pyramid * EXPAND_RATE, smallBlockRow = smallBlockCol;
    const int blockCols = cols / smallBlockCol + ((cols % smallBlockCol == 0) ? 0 : 1);
    const int blockRows = rows / smallBlockRow + ((rows % smallBlockRow == 0) ? 0 : 1);
    const size_t n = size_t(rows) * cols;

    // A chip with a few hot functional units on a cool background.
    std::vector<float> temp(n), power(n);
    Lcg rng(99);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            bool hot = ((r / 64) + (c / 64)) % 5 == 0;
            power[size_t(r) * cols + c] = (hot ? 2e-3f : 2e-5f) * (0.5f + rng.uniform());
            temp[size_t(r) * cols + c] = 323.0f + 10.0f * rng.uniform();
        }
    float grid_height = chip_height / rows, grid_width = chip_width / cols;
    float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
    float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
    float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
    float Rz = t_chip / (K_SI * grid_height * grid_width);
    float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
    float step = PRECISION / max_slope;

    float *dPower, *dTemp[2];
    checkCudaErrors(cudaMalloc(&dPower, n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dTemp[0], n * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dTemp[1], n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dPower, power.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dTemp[0], temp.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE), dimGrid(blockCols, blockRows);
    int src = 1, dst = 0, launches = 0;
    for (int t = 0; t < total; t += pyramid) {
        std::swap(src, dst);
        calculate_temp<<<dimGrid, dimBlock>>>(MIN(pyramid, total - t), dPower, dTemp[src], dTemp[dst], cols, rows,
                                              borderCols, borderRows, Cap, Rx, Ry, Rz, step);
        checkCudaErrors(cudaGetLastError());
        ++launches;
    }
    std::vector<float> out(n);
    checkCudaErrors(cudaMemcpy(out.data(), dTemp[dst], n * sizeof(float), cudaMemcpyDeviceToHost));

    // Host simulation, one step at a time.
    std::vector<float> cur = temp, next(n);
    const float sdc = step / Cap, rx1 = 1 / Rx, ry1 = 1 / Ry, rz1 = 1 / Rz;
    for (int t = 0; t < total; ++t) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                size_t k = size_t(r) * cols + c;
                float v = cur[k];
                float nN = cur[size_t(std::max(r - 1, 0)) * cols + c], nS = cur[size_t(std::min(r + 1, rows - 1)) * cols + c];
                float nW = cur[size_t(r) * cols + std::max(c - 1, 0)], nE = cur[size_t(r) * cols + std::min(c + 1, cols - 1)];
                next[k] = v + sdc * (power[k] + (nS + nN - 2.0 * v) * ry1 + (nE + nW - 2.0 * v) * rx1 + (amb_temp - v) * rz1);
            }
        std::swap(cur, next);
    }
    double maxErr = 0, sum = 0;
    float hottest = 0;
    for (size_t k = 0; k < n; ++k) {
        maxErr = std::max(maxErr, double(std::fabs(out[k] - cur[k])));
        sum += out[k];
        hottest = std::max(hottest, out[k]);
    }
    printf("grid %d x %d, pyramid %d, %d steps in %d launches of %d x %d blocks\n", rows, cols, pyramid, total,
           launches, blockCols, blockRows);
    printf("mean temperature %.4f K, hottest %.4f K, max difference from host %s\n", sum / n, hottest,
           maxErr < 1e-3 ? "< 1e-3" : "TOO LARGE");
    if (maxErr >= 1e-3) printf("max difference %.3e\n", maxErr);
    checkCudaErrors(cudaFree(dPower));
    checkCudaErrors(cudaFree(dTemp[0]));
    checkCudaErrors(cudaFree(dTemp[1]));
    return finish("hotspot", maxErr < 1e-3);
}
