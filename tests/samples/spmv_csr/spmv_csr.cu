// Sparse matrix-vector product in CSR form (SHOC style): one thread per row (scalar) and one
// warp per row with a shuffle reduction (vector), on a random matrix with integer values.
#include <vector>
#include "../common/helpers.h"

__global__ void spmvScalar(const int *rowPtr, const int *cols, const float *vals, const float *x, float *y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0;
        for (int k = rowPtr[r]; k < rowPtr[r + 1]; ++k) sum += vals[k] * x[cols[k]];
        y[r] = sum;
    }
}

template <int WarpsPerBlock>
__global__ void spmvVector(const int *rowPtr, const int *cols, const float *vals, const float *x, float *y, int rows) {
    int r = blockIdx.x * WarpsPerBlock + threadIdx.x / 32, lane = threadIdx.x & 31;
    if (r >= rows) return;  // whole warps leave together
    float sum = 0;
    for (int k = rowPtr[r] + lane; k < rowPtr[r + 1]; k += 32) sum += vals[k] * x[cols[k]];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[r] = sum;
}

int main(int argc, char **argv) {
    int rows = sizeArg(argc, argv, 1 << 16), cols = rows;
    std::vector<int> rowPtr(rows + 1), colIdx;
    std::vector<float> vals, x(cols);
    Lcg rng(8);
    rowPtr[0] = 0;
    for (int r = 0; r < rows; ++r) {
        int nnz = 1 + rng.next() % 64;
        for (int k = 0; k < nnz; ++k) {
            colIdx.push_back(rng.next() % cols);
            vals.push_back((float)((int)(rng.next() % 9) - 4));
        }
        rowPtr[r + 1] = (int)colIdx.size();
    }
    for (auto &v : x) v = (float)(rng.next() % 5);
    int nnz = (int)colIdx.size();
    int *dRow, *dCol;
    float *dVal, *dX, *dY;
    checkCudaErrors(cudaMalloc(&dRow, (rows + 1) * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dCol, nnz * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dVal, nnz * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dX, cols * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dY, rows * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dRow, rowPtr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dCol, colIdx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dVal, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dX, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> ref(rows), got(rows);
    for (int r = 0; r < rows; ++r) {
        float s = 0;
        for (int k = rowPtr[r]; k < rowPtr[r + 1]; ++k) s += vals[k] * x[colIdx[k]];
        ref[r] = s;
    }
    bool ok = true;
    for (int variant = 0; variant < 2; ++variant) {
        checkCudaErrors(cudaMemset(dY, 0, rows * sizeof(float)));
        EventTimer timer;
        timer.start();
        if (variant == 0) spmvScalar<<<(rows + 127) / 128, 128>>>(dRow, dCol, dVal, dX, dY, rows);
        else spmvVector<4><<<(rows + 3) / 4, 128>>>(dRow, dCol, dVal, dX, dY, rows);
        float ms = timer.stop();
        checkCudaErrors(cudaMemcpy(got.data(), dY, rows * sizeof(float), cudaMemcpyDeviceToHost));
        bool good = got == ref;
        printf("%s: %d rows, %d nonzeros: %s\n", variant ? "vector" : "scalar", rows, nnz, good ? "ok" : "WRONG");
        printf("  time: %.3f ms\n", ms);
        ok &= good;
    }
    checkCudaErrors(cudaFree(dRow));
    checkCudaErrors(cudaFree(dCol));
    checkCudaErrors(cudaFree(dVal));
    checkCudaErrors(cudaFree(dX));
    checkCudaErrors(cudaFree(dY));
    return finish("spmv_csr", ok);
}
