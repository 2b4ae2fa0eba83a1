// Bitonic sort of key/value pairs: whole arrays of up to 1024 elements sorted in shared memory
// by one block, longer arrays merged with global-memory steps between shared-memory stages.
#include <algorithm>
#include <vector>
#include "../common/helpers.h"

constexpr int SHARED_SIZE = 1024;

__device__ inline void compareSwap(unsigned &ka, unsigned &va, unsigned &kb, unsigned &vb, bool ascending) {
    if ((ka > kb) == ascending) {
        unsigned t = ka; ka = kb; kb = t;
        t = va; va = vb; vb = t;
    }
}

// Sorts each SHARED_SIZE chunk in alternating directions (or all ascending when the array is
// one chunk), leaving bitonic sequences for the global merge.
__global__ void bitonicSortShared(unsigned *keys, unsigned *vals, int n) {
    __shared__ unsigned sk[SHARED_SIZE], sv[SHARED_SIZE];
    int base = blockIdx.x * SHARED_SIZE;
    for (int i = threadIdx.x; i < SHARED_SIZE; i += blockDim.x) {
        sk[i] = keys[base + i];
        sv[i] = vals[base + i];
    }
    for (int size = 2; size <= SHARED_SIZE; size <<= 1) {
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            bool ascending = size == SHARED_SIZE ? (n == SHARED_SIZE || (blockIdx.x & 1) == 0)
                                                  : (threadIdx.x & (size / 2)) == 0;
            compareSwap(sk[pos], sv[pos], sk[pos + stride], sv[pos + stride], ascending);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SHARED_SIZE; i += blockDim.x) {
        keys[base + i] = sk[i];
        vals[base + i] = sv[i];
    }
}

__global__ void bitonicMergeGlobal(unsigned *keys, unsigned *vals, int n, int size, int stride) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2) return;
    int pos = 2 * t - (t & (stride - 1));
    bool ascending = (pos & size) == 0;
    compareSwap(keys[pos], vals[pos], keys[pos + stride], vals[pos + stride], ascending);
}

__global__ void bitonicMergeShared(unsigned *keys, unsigned *vals, int n, int size) {
    __shared__ unsigned sk[SHARED_SIZE], sv[SHARED_SIZE];
    int base = blockIdx.x * SHARED_SIZE;
    for (int i = threadIdx.x; i < SHARED_SIZE; i += blockDim.x) {
        sk[i] = keys[base + i];
        sv[i] = vals[base + i];
    }
    bool ascending = (base & size) == 0;
    for (int stride = SHARED_SIZE / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        compareSwap(sk[pos], sv[pos], sk[pos + stride], sv[pos + stride], ascending);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SHARED_SIZE; i += blockDim.x) {
        keys[base + i] = sk[i];
        vals[base + i] = sv[i];
    }
}

static void bitonicSort(unsigned *keys, unsigned *vals, int n) {
    bitonicSortShared<<<n / SHARED_SIZE, SHARED_SIZE / 2>>>(keys, vals, n);
    for (int size = 2 * SHARED_SIZE; size <= n; size <<= 1) {
        for (int stride = size / 2; stride >= SHARED_SIZE; stride >>= 1)
            bitonicMergeGlobal<<<(n / 2 + 255) / 256, 256>>>(keys, vals, n, size, stride);
        bitonicMergeShared<<<n / SHARED_SIZE, SHARED_SIZE / 2>>>(keys, vals, n, size);
    }
    checkCudaErrors(cudaGetLastError());
}

int main(int argc, char **argv) {
    int maxLog = sizeArg(argc, argv, 20);
    bool ok = true;
    for (int log = 10; log <= maxLog; log += 5) {
        int n = 1 << log;
        std::vector<unsigned> k(n), v(n);
        Lcg rng(log);
        for (int i = 0; i < n; ++i) { k[i] = rng.next() % 65536; v[i] = i; }
        unsigned *dk, *dv;
        checkCudaErrors(cudaMalloc(&dk, n * sizeof(unsigned)));
        checkCudaErrors(cudaMalloc(&dv, n * sizeof(unsigned)));
        checkCudaErrors(cudaMemcpy(dk, k.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        checkCudaErrors(cudaMemcpy(dv, v.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        EventTimer timer;
        timer.start();
        bitonicSort(dk, dv, n);
        float ms = timer.stop();
        std::vector<unsigned> rk(n), rv(n);
        checkCudaErrors(cudaMemcpy(rk.data(), dk, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        checkCudaErrors(cudaMemcpy(rv.data(), dv, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool good = true;
        for (int i = 0; i < n; ++i) good &= k[rv[i]] == rk[i] && (i == 0 || rk[i - 1] <= rk[i]);
        std::sort(rv.begin(), rv.end());
        for (int i = 0; i < n; ++i) good &= rv[i] == (unsigned)i;
        printf("n = %7d: %s\n", n, good ? "sorted" : "NOT SORTED");
        printf("  time: %.3f ms\n", ms);
        ok &= good;
        checkCudaErrors(cudaFree(dk));
        checkCudaErrors(cudaFree(dv));
    }
    return finish("bitonic_sort", ok);
}
