// Dynamic parallelism, recursive: kernels launching kernels from device code (nvcc -rdc=true
// -arch=sm_90 -lcudadevrt). A tree sum four levels deep (each grid splits its range into four
// child grids until a leaf), a quicksort whose partitions launch themselves into streams created
// in device code, and a grid that launches itself until the nesting limit refuses, each checked
// against the host. Prints `dynpar_tree: ok` last.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "perf_common.h"

constexpr int FANOUT = 4;
constexpr int LEAF = 256;
constexpr int LEVELS = 4;

// Sums data[0, n) into *total: a leaf sums with a grid-stride loop, any larger range is split
// into FANOUT child grids launched by threads 0..FANOUT-1 of block 0.
__global__ void tree_sum(const int *data, int n, unsigned long long *total, unsigned *grids_at,
                         int depth, int *errors) {
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&grids_at[depth], 1u);
    if (n > LEAF) {
        if (blockIdx.x == 0 && threadIdx.x < FANOUT) {
            int part = (n + FANOUT - 1) / FANOUT;
            int begin = threadIdx.x * part;
            int len = min(part, n - begin);
            if (len > 0) {
                tree_sum<<<2, 64>>>(data + begin, len, total, grids_at, depth + 1, errors);
                if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
            }
        }
        return;
    }
    unsigned long long sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += data[i];
    atomicAdd(total, sum);
}

constexpr int SORT_MAX_DEPTH = 16;
constexpr int SELECTION = 32;

__device__ void selection_sort(unsigned *data, int left, int right) {
    for (int i = left; i <= right; ++i) {
        unsigned min_value = data[i];
        int min_index = i;
        for (int j = i + 1; j <= right; ++j) {
            if (data[j] < min_value) {
                min_value = data[j];
                min_index = j;
            }
        }
        if (min_index != i) {
            data[min_index] = data[i];
            data[i] = min_value;
        }
    }
}

__global__ void quicksort(unsigned *data, int left, int right, int depth, int *errors,
                          unsigned *grids);

// Sorts data[left, right] in a child grid of its own stream (created in device code).
__device__ void sort_side(unsigned *data, int left, int right, int depth, int *errors,
                          unsigned *grids) {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) atomicAdd(errors, 1);
    quicksort<<<1, 1, 0, s>>>(data, left, right, depth + 1, errors, grids);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
    cudaStreamDestroy(s);
}

// Sorts data[left, right]: one thread partitions, then each side is a child grid in a stream
// of its own (created in device code, non-blocking).
__global__ void quicksort(unsigned *data, int left, int right, int depth, int *errors,
                          unsigned *grids) {
    atomicAdd(grids, 1u);
    if (depth >= SORT_MAX_DEPTH || right - left <= SELECTION) {
        selection_sort(data, left, right);
        return;
    }
    unsigned *lptr = data + left;
    unsigned *rptr = data + right;
    unsigned pivot = data[(left + right) / 2];
    while (lptr <= rptr) {
        unsigned lval = *lptr;
        unsigned rval = *rptr;
        while (lval < pivot) lval = *++lptr;
        while (rval > pivot) rval = *--rptr;
        if (lptr <= rptr) {
            *lptr++ = rval;
            *rptr-- = lval;
        }
    }
    int nright = int(rptr - data);
    int nleft = int(lptr - data);
    if (left < nright) sort_side(data, left, nright, depth, errors, grids);
    if (nleft < right) sort_side(data, nleft, right, depth, errors, grids);
}

// Launches itself one level deeper until a launch is refused; records the deepest grid and
// the refusal's code.
__global__ void dive(int depth, int *deepest, int *refusal) {
    atomicMax(deepest, depth);
    dive<<<1, 1>>>(depth + 1, deepest, refusal);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) atomicExch(refusal, int(e));
}

int main() {
    // Tree sum.
    const int n = LEAF;
    int total_n = n;
    for (int level = 1; level < LEVELS; ++level) total_n *= FANOUT;
    std::vector<int> data(total_n);
    unsigned long long expected = 0;
    for (int i = 0; i < total_n; ++i) {
        data[i] = (i * 7919) % 1000 - 300;
        expected += (unsigned long long)(long long)data[i];
    }
    int *d_data, *d_errors;
    unsigned long long *d_total;
    unsigned *d_grids;
    CHECK(cudaMalloc(&d_data, total_n * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&d_grids, 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_errors, sizeof(int)));
    CHECK(cudaMemcpy(d_data, data.data(), total_n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
    CHECK(cudaMemset(d_grids, 0, 32 * sizeof(unsigned)));
    CHECK(cudaMemset(d_errors, 0, sizeof(int)));
    tree_sum<<<2, 64>>>(d_data, total_n, d_total, d_grids, 0, d_errors);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long total = 0;
    unsigned grids_at[32];
    int errors = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(grids_at, d_grids, sizeof grids_at, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
    bool ok = true;
    unsigned want = 1;
    printf("tree sum of %d values:", total_n);
    for (int level = 0; level < LEVELS; ++level) {
        printf(" %u", grids_at[level]);
        ok = ok && grids_at[level] == want;
        want *= FANOUT;
    }
    ok = ok && grids_at[LEVELS] == 0;
    printf(" grids by depth, sum %llu (host %llu), %d launch errors\n", total, expected, errors);
    if (!ok || total != expected || errors != 0) {
        printf("dynpar_tree: tree sum FAILED\n");
        return 1;
    }

    // Quicksort.
    const int count = 2048;
    std::vector<unsigned> values(count);
    Lcg lcg(12345);
    for (auto &v : values) v = lcg.next() >> 8;
    unsigned *d_values;
    CHECK(cudaMalloc(&d_values, count * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_values, values.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_errors, 0, sizeof(int)));
    CHECK(cudaMemset(d_grids, 0, sizeof(unsigned)));
    quicksort<<<1, 1>>>(d_values, 0, count - 1, 0, d_errors, d_grids);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> sorted(count);
    unsigned sort_grids = 0;
    CHECK(cudaMemcpy(sorted.data(), d_values, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sort_grids, d_grids, sizeof sort_grids, cudaMemcpyDeviceToHost));
    std::sort(values.begin(), values.end());
    bool sorted_ok = sorted == values;
    printf("quicksort of %d values: %s, %s grids, %d launch errors\n", count,
           sorted_ok ? "sorted" : "NOT sorted", sort_grids > 1 ? "several" : "one", errors);
    if (!sorted_ok || errors != 0 || sort_grids < 3) {
        printf("dynpar_tree: quicksort FAILED\n");
        return 1;
    }

    // The nesting limit.
    int *d_deepest, *d_refusal;
    CHECK(cudaMalloc(&d_deepest, sizeof(int)));
    CHECK(cudaMalloc(&d_refusal, sizeof(int)));
    CHECK(cudaMemset(d_deepest, 0, sizeof(int)));
    CHECK(cudaMemset(d_refusal, 0, sizeof(int)));
    dive<<<1, 1>>>(0, d_deepest, d_refusal);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int deepest = 0, refusal = 0;
    CHECK(cudaMemcpy(&deepest, d_deepest, sizeof deepest, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&refusal, d_refusal, sizeof refusal, cudaMemcpyDeviceToHost));
    printf("nesting: deepest grid at depth %d, the launch beyond it: %s\n", deepest,
           cudaGetErrorName(cudaError_t(refusal)));
    // Every level waits for its child: the chain ends at the pending-launch limit (an H200
    // went 2048 levels deep by default, then refused with this code; no limit of 24 levels).
    size_t pending_limit = 0;
    CHECK(cudaDeviceGetLimit(&pending_limit, cudaLimitDevRuntimePendingLaunchCount));
    if (refusal != cudaErrorLaunchPendingCountExceeded || deepest != (int)pending_limit) {
        printf("dynpar_tree: nesting limit FAILED\n");
        return 1;
    }
    return finish("dynpar_tree", true);
}
