// The benchmark kernels of kernels.ptx and user_kernels.cu in OpenCL C, for POCL
// (scripts/bench/pocl_bench.c). warp_sum is a tree over 32 elements in local memory (OpenCL
// C 1.2 has no shuffles); grid_sum has no OpenCL form (no grid-wide barrier).

__kernel void saxpy(__global const float *x, __global float *y, float a, uint n) {
    uint i = get_global_id(0);
    if (i < n) y[i] = fma(a, x[i], y[i]);
}

__kernel void matmul(__global const float *A, __global const float *B, __global float *C, uint n) {
    __local float As[16][16], Bs[16][16];
    uint tx = get_local_id(0), ty = get_local_id(1);
    uint row = get_group_id(1) * 16 + ty, col = get_group_id(0) * 16 + tx;
    float acc = 0.0f;
    for (uint k = 0; k < n; k += 16) {
        As[ty][tx] = A[row * n + k + tx];
        Bs[ty][tx] = B[(k + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint j = 0; j < 16; j++) acc = fma(As[ty][j], Bs[j][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}

__kernel void block_sum(__global const uint *in, __global uint *out) {
    __local uint cache[256];
    uint t = get_local_id(0);
    cache[t] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 128; s > 0; s >>= 1) {
        if (t < s) cache[t] += cache[t + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) out[get_group_id(0)] = cache[0];
}

__kernel void warp_sum(__global const uint *in, __global uint *out) {
    __local uint cache[256];
    uint t = get_local_id(0), lane = t & 31;
    cache[t] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 16; s > 0; s >>= 1) {
        if (lane < s) cache[t] += cache[t + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0) out[get_global_id(0) / 32] = cache[t];
}

__kernel void histogram(__global const uint *in, __global uint *hist, uint n) {
    __local uint bins[256];
    uint t = get_local_id(0);
    bins[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&bins[in[i] & 255]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&hist[t], bins[t]);
}

__kernel void tile_scan(__global const uint *in, __global uint *out) {
    __local uint totals[256];
    uint t = get_local_id(0), base = get_group_id(0) * 1024 + t * 4;
    uint a = in[base], b = a + in[base + 1], c = b + in[base + 2], d = c + in[base + 3];
    totals[t] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint offset = 1; offset < 256; offset <<= 1) {
        uint add = t >= offset ? totals[t - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        totals[t] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint prefix = t ? totals[t - 1] : 0;
    out[base] = prefix + a;
    out[base + 1] = prefix + b;
    out[base + 2] = prefix + c;
    out[base + 3] = prefix + d;
}

__kernel void tile_radix_sort(__global uint *keys) {
    __local uint tile[256], ones[256];
    uint t = get_local_id(0), base = get_group_id(0) * 256;
    tile[t] = keys[base + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint bit = 0; bit < 32; ++bit) {
        uint key = tile[t], flag = (key >> bit) & 1;
        ones[t] = flag;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint offset = 1; offset < 256; offset <<= 1) {
            uint add = t >= offset ? ones[t - offset] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            ones[t] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        uint ones_before = ones[t] - flag, zeros = 256 - ones[255];
        uint dst = flag ? zeros + ones_before : t - ones_before;
        barrier(CLK_LOCAL_MEM_FENCE);
        tile[dst] = key;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    keys[base + t] = tile[t];
}

__kernel void transpose(__global const float *in, __global float *out, uint n) {
    __local float tile[32][33];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint x = get_group_id(0) * 32 + lx, y = get_group_id(1) * 32 + ly;
    for (uint j = 0; j < 32; j += 8) tile[ly + j][lx] = in[(y + j) * n + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * 32 + lx;
    y = get_group_id(0) * 32 + ly;
    for (uint j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[lx][ly + j];
}
