// Less common instructions that real kernels use: read-only loads, clocks and sleep, warp
// reductions (redux.sync), asynchronous copies into shared memory, assertions and traps,
// device-side malloc, texture fetches, system fences, and grid-wide synchronisation.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

extern "C" __global__ void ldg_and_clock(const float *__restrict__ in, float *out,
                                         long long *cycles, unsigned long long *ns)
{
    long long t0 = clock64();
    float v = __ldg(&in[threadIdx.x]) + __ldcs(&in[threadIdx.x + 32]);
    __stcg(&out[threadIdx.x], v);
    __nanosleep(100);
    unsigned long long g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    cycles[threadIdx.x] = clock64() - t0;
    ns[threadIdx.x] = g;
}

// redux.sync (sm_80): warp-wide integer reductions in one instruction.
extern "C" __global__ void warp_redux(const int *in, int *out)
{
    int v = in[threadIdx.x];
    unsigned u = (unsigned)v;
    out[4 * threadIdx.x + 0] = __reduce_add_sync(0xffffffffu, v);
    out[4 * threadIdx.x + 1] = __reduce_min_sync(0xffffffffu, v);
    out[4 * threadIdx.x + 2] = __reduce_max_sync(0xffffffffu, v);
    out[4 * threadIdx.x + 3] = (int)__reduce_xor_sync(0xffffffffu, u);
}

// cp.async (sm_80) through the pipeline primitives: global -> shared without registers.
extern "C" __global__ void async_copy(const float4 *in, float4 *out)
{
    __shared__ float4 tile[128];
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * 128 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    float4 v = tile[127 - threadIdx.x];
    out[blockIdx.x * 128 + threadIdx.x] = make_float4(v.w, v.z, v.y, v.x);
}

extern "C" __global__ void checked_divide(const int *a, const int *b, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(b[i] != 0);
    if (a[i] < 0) __trap();
    out[i] = a[i] / b[i];
}

extern "C" __global__ void device_malloc(int **slots, int n)
{
    int *p = (int *)malloc(n * sizeof(int));
    if (p) {
        for (int i = 0; i < n; ++i) p[i] = threadIdx.x * i;
    }
    slots[threadIdx.x] = p;
}

extern "C" __global__ void device_free(int **slots)
{
    free(slots[threadIdx.x]);
}

extern "C" __global__ void texture_fetch(cudaTextureObject_t tex, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i) * 2.0f;
}

// Producer/consumer through system-scope fences and volatile polling.
extern "C" __global__ void flag_handoff(volatile int *flag, int *data)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        data[0] = 42;
        __threadfence_system();
        *flag = 1;
    } else if (threadIdx.x == 0) {
        while (*flag == 0) {
        }
        data[blockIdx.x] = data[0] + (int)blockIdx.x;
    }
}

// Grid-wide barrier: needs a cooperative launch.
extern "C" __global__ void grid_sync_sum(const int *in, int *partial, int *total, int n)
{
    cg::grid_group grid = cg::this_grid();
    int s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += in[i];
    atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        *total = t;
    }
}
