// Minimal CUDA declarations for clang's CUDA front end without the CUDA SDK
// (-nocudainc -nocudalib): attributes, thread indices, barriers, shuffles, atomics, printf.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __attribute__((always_inline)) inline

struct dim_reader_tid {
    __device__ unsigned get_x() const { return __nvvm_read_ptx_sreg_tid_x(); }
    __declspec(property(get = get_x)) unsigned x;
    __device__ unsigned get_y() const { return __nvvm_read_ptx_sreg_tid_y(); }
    __declspec(property(get = get_y)) unsigned y;
};
struct dim_reader_ntid {
    __device__ unsigned get_x() const { return __nvvm_read_ptx_sreg_ntid_x(); }
    __declspec(property(get = get_x)) unsigned x;
    __device__ unsigned get_y() const { return __nvvm_read_ptx_sreg_ntid_y(); }
    __declspec(property(get = get_y)) unsigned y;
};
struct dim_reader_ctaid {
    __device__ unsigned get_x() const { return __nvvm_read_ptx_sreg_ctaid_x(); }
    __declspec(property(get = get_x)) unsigned x;
    __device__ unsigned get_y() const { return __nvvm_read_ptx_sreg_ctaid_y(); }
    __declspec(property(get = get_y)) unsigned y;
};
struct dim_reader_nctaid {
    __device__ unsigned get_x() const { return __nvvm_read_ptx_sreg_nctaid_x(); }
    __declspec(property(get = get_x)) unsigned x;
};

extern const __device__ __attribute__((weak)) dim_reader_tid threadIdx;
extern const __device__ __attribute__((weak)) dim_reader_ntid blockDim;
extern const __device__ __attribute__((weak)) dim_reader_ctaid blockIdx;
extern const __device__ __attribute__((weak)) dim_reader_nctaid gridDim;

__device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned delta)
{
    return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}
__device__ __forceinline__ float __shfl_xor_sync(unsigned mask, float v, int lane_mask)
{
    return __nvvm_shfl_sync_bfly_f32(mask, v, lane_mask, 0x1f);
}
__device__ __forceinline__ unsigned __ballot_sync(unsigned mask, bool p)
{
    return __nvvm_vote_ballot_sync(mask, p);
}
__device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ __forceinline__ int atomicCAS(int *p, int cmp, int v)
{
    return __nvvm_atom_cas_gen_i(p, cmp, v);
}
__device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ __forceinline__ float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
__device__ __forceinline__ float fast_exp2f(float x) { return __nvvm_ex2_approx_f(x); }

extern "C" __device__ int printf(const char *, ...);
