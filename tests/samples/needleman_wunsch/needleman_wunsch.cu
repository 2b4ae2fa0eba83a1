// Needleman-Wunsch global alignment scores (Rodinia style): the score matrix is processed in
// 16x16 tiles along anti-diagonals of tiles, and inside a tile along anti-diagonals of cells,
// in shared memory, first the upper-left triangle of tiles and then the lower-right one.
#include <algorithm>
#include <vector>
#include "../common/helpers.h"

constexpr int B = 16;

__device__ inline int max3(int a, int b, int c) { return max(a, max(b, c)); }

// Processes the tiles of one tile anti-diagonal: tile (bx, by) with bx + by == diag.
__global__ void nwDiagonal(int *score, const int *reference, int cols, int diag, int firstX, int penalty) {
    __shared__ int s[B + 1][B + 1];
    __shared__ int ref[B][B];
    int bx = firstX + blockIdx.x, by = diag - bx, tx = threadIdx.x;
    int baseX = bx * B, baseY = by * B;  // the tile's cells are score[(baseY + 1 + i) * cols + baseX + 1 + j]
    for (int i = 0; i < B; ++i) ref[i][tx] = reference[(baseY + 1 + i) * cols + baseX + 1 + tx];
    if (tx == 0) s[0][0] = score[baseY * cols + baseX];
    s[tx + 1][0] = score[(baseY + 1 + tx) * cols + baseX];
    s[0][tx + 1] = score[baseY * cols + baseX + 1 + tx];
    __syncthreads();
    for (int d = 0; d < 2 * B - 1; ++d) {
        int i = tx, j = d - tx;
        if (j >= 0 && j < B)
            s[i + 1][j + 1] = max3(s[i][j] + ref[i][j], s[i][j + 1] - penalty, s[i + 1][j] - penalty);
        __syncthreads();
    }
    for (int i = 0; i < B; ++i) score[(baseY + 1 + i) * cols + baseX + 1 + tx] = s[i + 1][tx + 1];
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 2048), penalty = 10;  // sequence length, a multiple of 16
    int cols = n + 1, tiles = n / B;
    std::vector<int> seqA(n), seqB(n), reference(cols * cols, 0), score(cols * cols, 0);
    Lcg rng(12);
    for (int i = 0; i < n; ++i) { seqA[i] = rng.next() % 10 + 1; seqB[i] = rng.next() % 10 + 1; }
    for (int i = 1; i < cols; ++i)
        for (int j = 1; j < cols; ++j) reference[i * cols + j] = seqA[i - 1] == seqB[j - 1] ? 5 : -((seqA[i - 1] + seqB[j - 1]) % 4);
    for (int i = 0; i < cols; ++i) score[i * cols] = score[i] = -i * penalty;
    int *dScore, *dRef;
    checkCudaErrors(cudaMalloc(&dScore, cols * cols * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dRef, cols * cols * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dScore, score.data(), cols * cols * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dRef, reference.data(), cols * cols * sizeof(int), cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    for (int diag = 0; diag < 2 * tiles - 1; ++diag) {
        int firstX = diag < tiles ? 0 : diag - tiles + 1, count = diag < tiles ? diag + 1 : 2 * tiles - 1 - diag;
        nwDiagonal<<<count, B>>>(dScore, dRef, cols, diag, firstX, penalty);
    }
    float ms = timer.stop();
    checkCudaErrors(cudaGetLastError());
    std::vector<int> got(cols * cols);
    checkCudaErrors(cudaMemcpy(got.data(), dScore, cols * cols * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 1; i < cols; ++i)
        for (int j = 1; j < cols; ++j) {
            int diagScore = score[(i - 1) * cols + j - 1] + reference[i * cols + j];
            int up = score[(i - 1) * cols + j] - penalty, left = score[i * cols + j - 1] - penalty;
            score[i * cols + j] = std::max(diagScore, std::max(up, left));
        }
    bool ok = got == score;
    printf("%d x %d alignment: final score %d %s\n", n, n, got[cols * cols - 1], ok ? "ok" : "WRONG");
    printf("time: %.3f ms\n", ms);
    checkCudaErrors(cudaFree(dScore));
    checkCudaErrors(cudaFree(dRef));
    return finish("needleman_wunsch", ok);
}
