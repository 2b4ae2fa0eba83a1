// The kernels of scripts/bench-check-cost.sh: saxpy, a shared-memory tiled matmul and a
// shared-memory tree reduction, each launched REPS times after one warm-up launch; prints the
// mean milliseconds per launch (host clock around launches and a synchronize).
//   check_cost saxpy|matmul|reduction [REPS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

constexpr int TILE = 16;

__global__ void matmul(int n, const float* a, const float* b, float* c) {
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < n; k += TILE) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + k + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(k + threadIdx.y) * n + col];
        __syncthreads();
        for (int j = 0; j < TILE; j++) sum += ta[threadIdx.y][j] * tb[j][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

__global__ void reduction(const float* in, float* out, int n) {
    __shared__ float partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

static void must(cudaError_t err, const char* what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(err));
        exit(1);
    }
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    const int n = 1 << 18, m = 128;
    std::vector<float> host(n, 1.0f);
    float *x, *y, *z;
    must(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
    must(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc");
    must(cudaMalloc(&z, n * sizeof(float)), "cudaMalloc");
    must(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    must(cudaMemcpy(y, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    must(cudaMemcpy(z, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    auto launch = [&]() {
        if (!strcmp(argv[1], "saxpy")) {
            saxpy<<<n / 256, 256>>>(n, 2.0f, x, y);
        } else if (!strcmp(argv[1], "matmul")) {
            matmul<<<dim3(m / TILE, m / TILE), dim3(TILE, TILE)>>>(m, x, y, z);
        } else if (!strcmp(argv[1], "reduction")) {
            reduction<<<n / 256, 256>>>(x, z, n);
        } else {
            fprintf(stderr, "unknown kernel %s\n", argv[1]);
            exit(2);
        }
        must(cudaGetLastError(), "launch");
    };
    launch();
    must(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++) launch();
    must(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    printf("%.3f\n", took.count() / reps);
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
    return 0;
}
