// PathFinder (Rodinia's pathfinder): dynamic programming over a grid of weights, finding for
// every column the cheapest path from the top row that moves down one row per step, straight
// or diagonally. Each launch advances `pyramid` rows: a block loads 256 columns into shared
// memory and narrows its valid range by one column per side each row, so neighbouring blocks
// overlap. A host pass row by row checks every column's cost exactly.
// Default: 100000 columns, 100 rows, pyramid height 20 (arguments: columns, rows, pyramid).
#include <algorithm>
#include <vector>
#include "../common/helpers.h"

#define BLOCK_SIZE 256
#define HALO 1
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__global__ void dynproc_kernel(int iteration, const int *gpuWall, const int *gpuSrc, int *gpuResults, int cols,
                               int rows, int startStep, int border) {
    __shared__ int prev[BLOCK_SIZE];
    __shared__ int result[BLOCK_SIZE];
    int bx = blockIdx.x, tx = threadIdx.x;
    int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
    int blkX = small_block_cols * bx - border;
    int blkXmax = blkX + BLOCK_SIZE - 1;
    int xidx = blkX + tx;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > cols - 1) ? BLOCK_SIZE - 1 - (blkXmax - cols + 1) : BLOCK_SIZE - 1;
    int W = tx - 1, E = tx + 1;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool isValid = IN_RANGE(tx, validXmin, validXmax);
    if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = gpuSrc[xidx];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
            computed = true;
            int left = prev[W], up = prev[tx], right = prev[E];
            int shortest = MIN(left, up);
            shortest = MIN(shortest, right);
            int index = cols * (startStep + i) + xidx;
            result[tx] = shortest + gpuWall[index];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed) gpuResults[xidx] = result[tx];
}

// Runs rows - 1 steps of pyramid rows each; returns which buffer holds the last row.
static int calc_path(const int *gpuWall, int *gpuResult[2], int rows, int cols, int pyramid_height,
                     int blockCols, int borderCols, int *launches) {
    dim3 dimBlock(BLOCK_SIZE), dimGrid(blockCols);
    int src = 1, dst = 0;
    for (int t = 0; t < rows - 1; t += pyramid_height) {
        std::swap(src, dst);
        dynproc_kernel<<<dimGrid, dimBlock>>>(MIN(pyramid_height, rows - t - 1), gpuWall, gpuResult[src],
                                              gpuResult[dst], cols, rows, t, borderCols);
        checkCudaErrors(cudaGetLastError());
        ++*launches;
    }
    return dst;
}

int main(int argc, char **argv) {
    const int cols = sizeArg(argc, argv, 100000), rows = argc > 2 ? atoi(argv[2]) : 100;
    const int pyramid_height = argc > 3 ? atoi(argv[3]) : 20;
    std::vector<int> wall(size_t(rows) * cols);
    Lcg rng(9);
    for (auto &w : wall) w = rng.next() % 10;
    const int borderCols = pyramid_height * HALO;
    const int smallBlockCol = BLOCK_SIZE - pyramid_height * HALO * 2;
    const int blockCols = cols / smallBlockCol + ((cols % smallBlockCol == 0) ? 0 : 1);

    int *gpuWall, *gpuResult[2];
    const size_t rest = size_t(rows - 1) * cols;
    checkCudaErrors(cudaMalloc(&gpuResult[0], sizeof(int) * cols));
    checkCudaErrors(cudaMalloc(&gpuResult[1], sizeof(int) * cols));
    checkCudaErrors(cudaMemcpy(gpuResult[0], wall.data(), sizeof(int) * cols, cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMalloc(&gpuWall, sizeof(int) * rest));
    checkCudaErrors(cudaMemcpy(gpuWall, wall.data() + cols, sizeof(int) * rest, cudaMemcpyHostToDevice));
    int launches = 0;
    int final_ret = calc_path(gpuWall, gpuResult, rows, cols, pyramid_height, blockCols, borderCols, &launches);
    std::vector<int> result(cols);
    checkCudaErrors(cudaMemcpy(result.data(), gpuResult[final_ret], sizeof(int) * cols, cudaMemcpyDeviceToHost));

    std::vector<int> cur(wall.begin(), wall.begin() + cols), next(cols);
    for (int r = 1; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            int best = cur[c];
            if (c > 0) best = std::min(best, cur[c - 1]);
            if (c < cols - 1) best = std::min(best, cur[c + 1]);
            next[c] = best + wall[size_t(r) * cols + c];
        }
        std::swap(cur, next);
    }
    int wrong = 0, best = result[0];
    long long total = 0;
    for (int c = 0; c < cols; ++c) {
        wrong += result[c] != cur[c];
        best = std::min(best, result[c]);
        total += result[c];
    }
    printf("%d columns x %d rows, pyramid %d: %d launches of %d blocks\n", cols, rows, pyramid_height, launches,
           blockCols);
    printf("cheapest path %d, sum of costs %lld, columns wrong %d\n", best, total, wrong);
    checkCudaErrors(cudaFree(gpuWall));
    checkCudaErrors(cudaFree(gpuResult[0]));
    checkCudaErrors(cudaFree(gpuResult[1]));
    return finish("pathfinder", wrong == 0);
}
