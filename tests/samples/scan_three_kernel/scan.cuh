// A three-kernel inclusive scan built from warp shuffles, as CUDA's shfl_scan sample does it:
// (1) each block scans its tile with __shfl_up_sync inside warps and a scan of the warp sums,
// and writes its tile's total; (2) one block scans the tile totals in passes of its own width,
// carrying the running total between passes; (3) every element of a tile adds the totals of the
// tiles before it. Templated on the element type (32- and 64-bit shuffles) and the block size.
#pragma once
#include <cuda_runtime.h>

template <typename T>
__device__ __forceinline__ T warpInclusiveScan(T value, unsigned lane) {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        T up = __shfl_up_sync(0xffffffffu, value, offset);
        if (lane >= offset) value += up;
    }
    return value;
}

// Scans a block's values in place; returns the block's total to every thread.
template <typename T, int BLOCK>
__device__ T blockInclusiveScan(T &value) {
    __shared__ T warpSums[BLOCK / 32];
    __shared__ T total;
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warpInclusiveScan(value, lane);
    if (lane == 31) warpSums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        T sum = lane < BLOCK / 32 ? warpSums[lane] : T(0);
        sum = warpInclusiveScan(sum, lane);
        if (lane < BLOCK / 32) warpSums[lane] = sum;
        if (lane == BLOCK / 32 - 1) total = sum;
    }
    __syncthreads();
    if (warp > 0) value += warpSums[warp - 1];
    T result = total;
    __syncthreads();  // warpSums and total are reused by the next call
    return result;
}

template <typename T, int BLOCK>
__global__ void scanTiles(const T *in, T *out, T *tileSums, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    T value = i < n ? in[i] : T(0);
    T total = blockInclusiveScan<T, BLOCK>(value);
    if (i < n) out[i] = value;
    if (threadIdx.x == 0) tileSums[blockIdx.x] = total;
}

template <typename T, int BLOCK>
__global__ void scanTileSums(T *tileSums, int tiles) {
    T carry = 0;
    for (int base = 0; base < tiles; base += BLOCK) {
        int i = base + threadIdx.x;
        T value = i < tiles ? tileSums[i] : T(0);
        T total = blockInclusiveScan<T, BLOCK>(value);
        if (i < tiles) tileSums[i] = value + carry;
        carry += total;
    }
}

template <typename T, int BLOCK>
__global__ void addTileOffsets(T *out, const T *tileSums, int n) {
    if (blockIdx.x == 0) return;
    __shared__ T offset;
    if (threadIdx.x == 0) offset = tileSums[blockIdx.x - 1];
    __syncthreads();
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] += offset;
}
