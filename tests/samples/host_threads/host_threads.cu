// Several host threads sharing one device, as servers and data loaders do: each std::thread
// makes its own stream, allocates its buffers, and launches the same kernels at the same time
// as the others (the first launch of a kernel may come from any thread), with pinned
// staging buffers, async copies, events and cudaStreamSynchronize; one thread uses the
// legacy default stream. Results are checked per thread against the host. Default: 8 threads,
// 40 rounds of 2^18 elements each.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#define CUDA_CHECK(stmt)                                                                   \
    do {                                                                                   \
        cudaError_t code = (stmt);                                                         \
        if (code != cudaSuccess) {                                                         \
            fprintf(stderr, "[%s:%d] %s failed: %s\n", __FILE__, __LINE__, #stmt,          \
                    cudaGetErrorString(code));                                             \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

__global__ void affine(const int *in, int *out, int n, int a, int b) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = a * in[i] + b;
}

__global__ void blockSums(const int *in, int n, long long *sums) {
    __shared__ long long s[256];
    long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long *>(sums),
                                    static_cast<unsigned long long>(s[0]));
}

struct Outcome {
    int wrong = 0;
    long long lastSum = 0;
};

static void worker(int id, int n, int rounds, bool legacy, Outcome *out) {
    cudaStream_t stream = 0;
    if (!legacy) CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int *hIn, *hOut, *dIn, *dOut;
    long long *dSum;
    CUDA_CHECK(cudaMallocHost(&hIn, n * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&hOut, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dIn, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&dSum, sizeof(long long)));
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < n; ++i) hIn[i] = (i * 7 + id * 1000 + r) % 10007 - 5000;
        const int a = id + 2, b = r - 3;
        CUDA_CHECK(cudaMemcpyAsync(dIn, hIn, n * sizeof(int), cudaMemcpyHostToDevice, stream));
        affine<<<64, 256, 0, stream>>>(dIn, dOut, n, a, b);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemsetAsync(dSum, 0, sizeof(long long), stream));
        blockSums<<<32, 256, 0, stream>>>(dOut, n, dSum);
        CUDA_CHECK(cudaGetLastError());
        long long sum = 0;
        CUDA_CHECK(cudaMemcpyAsync(hOut, dOut, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaMemcpyAsync(&sum, dSum, sizeof(sum), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaEventRecord(done, stream));
        if (r % 2) CUDA_CHECK(cudaEventSynchronize(done));
        else CUDA_CHECK(cudaStreamSynchronize(stream));
        long long want = 0;
        bool same = true;
        for (int i = 0; i < n; ++i) {
            int v = a * hIn[i] + b;
            same &= hOut[i] == v;
            want += v;
        }
        out->wrong += !same || sum != want;
        out->lastSum = sum;
    }
    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaFree(dIn));
    CUDA_CHECK(cudaFree(dOut));
    CUDA_CHECK(cudaFree(dSum));
    CUDA_CHECK(cudaFreeHost(hIn));
    CUDA_CHECK(cudaFreeHost(hOut));
    if (!legacy) CUDA_CHECK(cudaStreamDestroy(stream));
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
    const int threads = 8, rounds = 40;
    std::vector<Outcome> outcomes(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker, t, n, rounds, t == threads - 1, &outcomes[t]);
    for (auto &th : pool) th.join();
    CUDA_CHECK(cudaDeviceSynchronize());
    int wrong = 0;
    for (int t = 0; t < threads; ++t) {
        printf("thread %d: %d of %d rounds wrong, last sum %lld\n", t, outcomes[t].wrong, rounds,
               outcomes[t].lastSum);
        wrong += outcomes[t].wrong;
    }
    printf("host_threads: %s\n", wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
}
