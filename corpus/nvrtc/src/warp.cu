// Warp shuffles, votes and matches, including partial member masks.
extern "C" __global__ void shfl_all(const int *in, int *out)
{
    int lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    int base = blockIdx.x * blockDim.x * 4 + threadIdx.x * 4;
    out[base + 0] = __shfl_down_sync(0xffffffffu, v, 3);
    out[base + 1] = __shfl_up_sync(0xffffffffu, v, 5);
    out[base + 2] = __shfl_xor_sync(0xffffffffu, v, 1);
    out[base + 3] = __shfl_sync(0xffffffffu, v, (lane + 7) & 31);
}

// Shuffles with a width smaller than the warp (segments of 8 lanes) and float values.
extern "C" __global__ void shfl_width8(const float *in, float *out)
{
    float v = in[threadIdx.x];
    out[2 * threadIdx.x + 0] = __shfl_down_sync(0xffffffffu, v, 1, 8);
    out[2 * threadIdx.x + 1] = __shfl_sync(0xffffffffu, v, 0, 8);
}

// Only the lower half of the warp takes part: member mask 0x0000ffff.
extern "C" __global__ void shfl_partial_mask(const int *in, int *out)
{
    int lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    if (lane < 16) {
        v += __shfl_xor_sync(0x0000ffffu, v, 8);
        v += __shfl_xor_sync(0x0000ffffu, v, 4);
        v += __shfl_xor_sync(0x0000ffffu, v, 2);
        v += __shfl_xor_sync(0x0000ffffu, v, 1);
    }
    out[threadIdx.x] = v;
}

// Warp reduction of doubles (64-bit shuffles split into two 32-bit ones).
extern "C" __global__ void warp_reduce_f64(const double *in, double *out)
{
    double v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

extern "C" __global__ void votes(const int *in, unsigned *out)
{
    int v = in[threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int any = __any_sync(0xffffffffu, v < 0);
    int all = __all_sync(0xffffffffu, v != 0);
    unsigned active = __activemask();
    if ((threadIdx.x & 31) == 0) {
        int w = threadIdx.x / 32;
        out[4 * w + 0] = ballot;
        out[4 * w + 1] = any;
        out[4 * w + 2] = all;
        out[4 * w + 3] = active;
    }
}

// Divergent vote: only odd lanes vote, with the mask of odd lanes.
extern "C" __global__ void vote_divergent(const int *in, unsigned *out)
{
    int lane = threadIdx.x & 31;
    unsigned r = 0;
    if (lane & 1) r = __ballot_sync(0xaaaaaaaau, in[threadIdx.x] > 10);
    out[threadIdx.x] = r;
}

extern "C" __global__ void match_lanes(const int *in, unsigned *any_out, unsigned *all_out,
                                       int *pred_out)
{
    int v = in[threadIdx.x];
    int pred = 0;
    any_out[threadIdx.x] = __match_any_sync(0xffffffffu, v);
    all_out[threadIdx.x] = __match_all_sync(0xffffffffu, v, &pred);
    pred_out[threadIdx.x] = pred;
}

extern "C" __global__ void match_u64(const unsigned long long *in, unsigned *out)
{
    out[threadIdx.x] = __match_any_sync(0xffffffffu, in[threadIdx.x]);
}

// Lane id through the PTX special register and a warp-synchronous barrier.
extern "C" __global__ void lane_ids(unsigned *out)
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    __syncwarp();
    out[blockIdx.x * blockDim.x + threadIdx.x] = lane | (threadIdx.x / 32) << 8;
}
