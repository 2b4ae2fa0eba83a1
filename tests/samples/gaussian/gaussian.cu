// Gaussian elimination (Rodinia's gaussian): forward elimination on the device, two launches
// per pivot (Fan1 computes the multipliers of the column below the pivot, Fan2 updates the
// trailing rows with 4 x 4 thread blocks and the right-hand side), each followed by
// cudaDeviceSynchronize as Rodinia does; back substitution on the host. A diagonally dominant
// system with a known solution checks the result. Default: 768 unknowns, 1534 launches
// (argument: the size).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

#define MAXBLOCKSIZE 512
#define BLOCK_SIZE_XY 4

__global__ void Fan1(float *m_cuda, const float *a_cuda, int Size, int t) {
    if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
    *(m_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) =
        *(a_cuda + Size * (blockDim.x * blockIdx.x + threadIdx.x + t + 1) + t) / *(a_cuda + Size * t + t);
}

__global__ void Fan2(const float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t) {
    if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
    if (threadIdx.y + blockIdx.y * blockDim.y >= Size - t) return;
    int xidx = blockIdx.x * blockDim.x + threadIdx.x;
    int yidx = blockIdx.y * blockDim.y + threadIdx.y;
    a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
    if (yidx == 0) b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
}

// Forward elimination of the Size x Size system (a, b) in place on the device; m gets the
// multipliers. Returns the number of launches.
static int ForwardSub(float *m_cuda, float *a_cuda, float *b_cuda, int Size) {
    int block_size = MAXBLOCKSIZE, grid_size = (Size / block_size) + (!(Size % block_size) ? 0 : 1);
    dim3 dimBlock(block_size), dimGrid(grid_size);
    int blockSize2d = BLOCK_SIZE_XY, gridSize2d = (Size / blockSize2d) + (!(Size % blockSize2d ? 0 : 1));
    dim3 dimBlockXY(blockSize2d, blockSize2d), dimGridXY(gridSize2d, gridSize2d);
    int launches = 0;
    for (int t = 0; t < (Size - 1); t++) {
        Fan1<<<dimGrid, dimBlock>>>(m_cuda, a_cuda, Size, t);
        checkCudaErrors(cudaDeviceSynchronize());
        Fan2<<<dimGridXY, dimBlockXY>>>(m_cuda, a_cuda, b_cuda, Size, Size - t, t);
        checkCudaErrors(cudaDeviceSynchronize());
        launches += 2;
    }
    return launches;
}

int main(int argc, char **argv) {
    const int Size = std::max(2, sizeArg(argc, argv, 768));
    const size_t n2 = size_t(Size) * Size;
    std::vector<float> a(n2), b(Size, 0.f), x(Size);
    Lcg rng(31);
    for (int i = 0; i < Size; ++i) x[i] = float(int(rng.next() % 200) - 100) / 10.f;
    for (int i = 0; i < Size; ++i)
        for (int j = 0; j < Size; ++j) a[size_t(i) * Size + j] = (i == j ? 2.f * Size : 0.f) + rng.uniform() - 0.5f;
    std::vector<double> bd(Size, 0.0);
    for (int i = 0; i < Size; ++i) {
        for (int j = 0; j < Size; ++j) bd[i] += double(a[size_t(i) * Size + j]) * x[j];
        b[i] = float(bd[i]);
    }
    float *m_cuda, *a_cuda, *b_cuda;
    checkCudaErrors(cudaMalloc(&m_cuda, n2 * sizeof(float)));
    checkCudaErrors(cudaMalloc(&a_cuda, n2 * sizeof(float)));
    checkCudaErrors(cudaMalloc(&b_cuda, Size * sizeof(float)));
    checkCudaErrors(cudaMemset(m_cuda, 0, n2 * sizeof(float)));
    checkCudaErrors(cudaMemcpy(a_cuda, a.data(), n2 * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(b_cuda, b.data(), Size * sizeof(float), cudaMemcpyHostToDevice));
    int launches = ForwardSub(m_cuda, a_cuda, b_cuda, Size);
    std::vector<float> u(n2), bb(Size), m(n2);
    checkCudaErrors(cudaMemcpy(u.data(), a_cuda, n2 * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(bb.data(), b_cuda, Size * sizeof(float), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(m.data(), m_cuda, n2 * sizeof(float), cudaMemcpyDeviceToHost));

    // Back substitution on the host, as Rodinia's BackSub.
    std::vector<float> finalVec(Size);
    for (int i = 0; i < Size; i++) {
        int r = Size - i - 1;
        finalVec[r] = bb[r];
        for (int j = 0; j < i; j++) finalVec[r] -= u[size_t(r) * Size + (Size - j - 1)] * finalVec[Size - j - 1];
        finalVec[r] = finalVec[r] / u[size_t(r) * Size + r];
    }
    // The upper triangle is U, the multipliers L: check L * U against A on a sample of rows.
    double maxErr = 0, maxRes = 0, sum = 0;
    for (int i = 0; i < Size; ++i) {
        maxErr = std::max(maxErr, double(std::fabs(finalVec[i] - x[i])));
        sum += finalVec[i];
    }
    for (int i = 0; i < Size; i += 13)
        for (int j = 0; j < Size; ++j) {
            double s = 0;
            for (int k = 0; k <= std::min(i, j); ++k) s += (k == i ? 1.0 : m[size_t(i) * Size + k]) * u[size_t(k) * Size + j];
            maxRes = std::max(maxRes, std::fabs(s - a[size_t(i) * Size + j]) / Size);
        }
    const bool ok = maxErr < 1e-3 && maxRes < 1e-5;
    printf("%d unknowns, %d launches, solution sum %.3f\n", Size, launches, sum);
    printf("max solution error %s, max L*U residual %s\n", maxErr < 1e-3 ? "< 1e-3" : "TOO LARGE",
           maxRes < 1e-5 ? "< 1e-5" : "TOO LARGE");
    if (!ok) printf("max solution error %.3e, residual %.3e\n", maxErr, maxRes);
    checkCudaErrors(cudaFree(m_cuda));
    checkCudaErrors(cudaFree(a_cuda));
    checkCudaErrors(cudaFree(b_cuda));
    return finish("gaussian", ok);
}
