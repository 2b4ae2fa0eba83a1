// Tiled matrix multiply with shared memory: C[M,N] = A[M,K] * B[K,N], row-major.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N,
                                        int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x;
        int bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// Templated variant with a mangled name, instantiated for float and double.
template <typename T, int TS>
__global__ void matmul_t(const T *A, const T *B, T *C, int n)
{
    __shared__ T As[TS][TS];
    __shared__ T Bs[TS][TS];
    int row = blockIdx.y * TS + threadIdx.y;
    int col = blockIdx.x * TS + threadIdx.x;
    T acc = 0;
    for (int t = 0; t < n / TS; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TS + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TS + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TS; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

template __global__ void matmul_t<float, 16>(const float *, const float *, float *, int);
template __global__ void matmul_t<double, 8>(const double *, const double *, double *, int);
