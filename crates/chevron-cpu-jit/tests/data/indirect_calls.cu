// Kernels of tests/indirect_calls.rs: calls through function pointers. indirect_calls.ptx is
// this file compiled by
//   nvcc -ptx -O3 -arch=sm_75 -o indirect_calls.ptx indirect_calls.cu   (CUDA 13.0)
typedef int (*op_t)(int, int);
__device__ int add_op(int a, int b) { return a + b; }
__device__ int mul_op(int a, int b) { return a * b; }
__device__ int sub_op(int a, int b) { return a - b; }
__device__ int twice_op(int a, int b);
// The last entry is no function: a call through it faults.
__device__ op_t ops[5] = {add_op, mul_op, sub_op, twice_op, nullptr};
// Calls through the table again: itself when b's low bits are 3 (recursion, ending as b
// runs out of bits).
__device__ int twice_op(int a, int b) { return 2 * ops[b & 3](a, b >> 2); }

extern "C" __global__ void apply_ops(const int *sel, const int *arg, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = ops[sel[i]](i, arg[i]);
}

// A global atomic before an indirect call: a block the interpreter ran again would add twice.
extern "C" __global__ void count_then_apply(unsigned *count, const int *sel, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(count, 1u);
    out[i] = ops[sel[i]](i, 1);
}
