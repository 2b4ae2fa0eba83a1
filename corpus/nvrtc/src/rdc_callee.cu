// Compiled with -rdc=true: device functions and a global used by rdc_caller.cu.
__device__ int rdc_counter;

extern "C" __device__ float rdc_scale(float x, float s)
{
    return x * s + 1.0f;
}

// C++ linkage: the caller refers to the mangled name _Z8rdc_clampiii.
__device__ int rdc_clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

__device__ void rdc_bump(int by)
{
    atomicAdd(&rdc_counter, by);
}

// A kernel in the callee object too, so both objects have entries.
extern "C" __global__ void rdc_reset(int value)
{
    rdc_counter = value;
}
