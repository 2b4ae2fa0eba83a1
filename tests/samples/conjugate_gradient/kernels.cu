// The device side of the conjugate-gradient solver: CSR SpMV (a warp per row, __ldg reads,
// shuffle reduction), dot products with a grid-stride loop, a block reduction and one
// atomicAdd on a double per block, and the axpy updates; launch sizes from
// cudaOccupancyMaxPotentialBlockSize. Scalars stay on the device between kernels.
#include <algorithm>
#include <cmath>
#include "solver.h"

__global__ void spmvWarpPerRow(int rows, const int *__restrict__ rowPtr,
                               const int *__restrict__ cols, const double *__restrict__ vals,
                               const double *__restrict__ x, double *__restrict__ y) {
    const int lane = threadIdx.x & 31;
    const int warpsTotal = gridDim.x * blockDim.x / 32;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += warpsTotal) {
        double sum = 0;
        for (int k = __ldg(rowPtr + row) + lane; k < __ldg(rowPtr + row + 1); k += 32)
            sum += __ldg(vals + k) * __ldg(x + __ldg(cols + k));
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0) y[row] = sum;
    }
}

template <int BLOCK>
__global__ void dot(int n, const double *__restrict__ a, const double *__restrict__ b,
                    double *__restrict__ result) {
    __shared__ double cache[BLOCK];
    double sum = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        sum += a[i] * b[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}

// x += alpha p, r -= alpha Ap with alpha = rr / pAp.
__global__ void updateXR(int n, const double *__restrict__ rr, const double *__restrict__ pAp,
                         const double *__restrict__ p, const double *__restrict__ ap,
                         double *__restrict__ x, double *__restrict__ r) {
    const double alpha = *rr / *pAp;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        x[i] += alpha * p[i];
        r[i] -= alpha * ap[i];
    }
}

// p = r + beta p with beta = rrNew / rr.
__global__ void updateP(int n, const double *__restrict__ rrNew, const double *__restrict__ rr,
                        const double *__restrict__ r, double *__restrict__ p) {
    const double beta = *rrNew / *rr;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = r[i] + beta * p[i];
}

template <typename T> static T *upload(const std::vector<T> &v) {
    T *d;
    CUDA_CALL(cudaMalloc(&d, v.size() * sizeof(T)));
    CUDA_CALL(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

SolveResult solveOnDevice(const CsrMatrix &a, const std::vector<double> &b, double tol,
                          int maxIter) {
    const int n = a.rows;
    constexpr int kDotBlock = 256;
    int *rowPtr = upload(a.rowPtr), *cols = upload(a.cols);
    double *vals = upload(a.vals), *r = upload(b), *p = upload(b), *x, *ap, *scalars;
    CUDA_CALL(cudaMalloc(&x, n * sizeof(double)));
    CUDA_CALL(cudaMalloc(&ap, n * sizeof(double)));
    CUDA_CALL(cudaMalloc(&scalars, 3 * sizeof(double))); // rr, pAp, rrNew
    CUDA_CALL(cudaMemset(x, 0, n * sizeof(double)));
    double *rr = scalars, *pAp = scalars + 1, *rrNew = scalars + 2;

    int gridSpmv, blockSpmv, gridAxpy, blockAxpy, dotBlocksPerSm, sms;
    CUDA_CALL(cudaOccupancyMaxPotentialBlockSize(&gridSpmv, &blockSpmv, spmvWarpPerRow));
    CUDA_CALL(cudaOccupancyMaxPotentialBlockSize(&gridAxpy, &blockAxpy, updateXR));
    CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dotBlocksPerSm, dot<kDotBlock>,
                                                            kDotBlock, 0));
    CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int gridDot = std::max(1, std::min(dotBlocksPerSm * sms, (n + kDotBlock - 1) / kDotBlock));
    gridSpmv = std::min(gridSpmv, (n * 32 + blockSpmv - 1) / blockSpmv);
    gridAxpy = std::min(gridAxpy, (n + blockAxpy - 1) / blockAxpy);

    double bb = 0;
    for (double v : b) bb += v * v;
    const double stop = tol * tol * bb;
    CUDA_CALL(cudaMemset(rr, 0, sizeof(double)));
    dot<kDotBlock><<<gridDot, kDotBlock>>>(n, r, r, rr);
    CUDA_CALL(cudaGetLastError());
    double rrHost = 0;
    int it = 0;
    CUDA_CALL(cudaMemcpy(&rrHost, rr, sizeof(double), cudaMemcpyDeviceToHost));
    while (it < maxIter && rrHost > stop) {
        spmvWarpPerRow<<<gridSpmv, blockSpmv>>>(n, rowPtr, cols, vals, p, ap);
        CUDA_CALL(cudaMemsetAsync(pAp, 0, 2 * sizeof(double)));
        dot<kDotBlock><<<gridDot, kDotBlock>>>(n, p, ap, pAp);
        updateXR<<<gridAxpy, blockAxpy>>>(n, rr, pAp, p, ap, x, r);
        dot<kDotBlock><<<gridDot, kDotBlock>>>(n, r, r, rrNew);
        updateP<<<gridAxpy, blockAxpy>>>(n, rrNew, rr, r, p);
        CUDA_CALL(cudaGetLastError());
        CUDA_CALL(cudaMemcpyAsync(rr, rrNew, sizeof(double), cudaMemcpyDeviceToDevice));
        CUDA_CALL(cudaMemcpy(&rrHost, rr, sizeof(double), cudaMemcpyDeviceToHost));
        ++it;
    }
    SolveResult result{it, std::sqrt(rrHost / bb), std::vector<double>(n)};
    CUDA_CALL(cudaMemcpy(result.x.data(), x, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (void *ptr : {(void *)rowPtr, (void *)cols, (void *)vals, (void *)r, (void *)p, (void *)x,
                      (void *)ap, (void *)scalars})
        CUDA_CALL(cudaFree(ptr));
    return result;
}
