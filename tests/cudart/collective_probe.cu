// Collective probe: what the hardware returns from warp collectives whose source lanes are outside
// the member mask, diverged away, exited or never arrived. Prints one line per case,
// one row per case, one column per lane (-1: the lane did not execute the case). The H200's
// output is scripts/gpu/probes/collective_probe.h200.txt; the CPU device's executors must print
// the same (scripts/test.d/fidelity.sh), and chevron's CUDA backend too (scripts/gpu/fidelity.sh).
#include <cstdio>
#include <cstdint>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("error %s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

enum { CASES = 24 };
__device__ int out[CASES][32];

// redux.sync (__reduce_*_sync) needs sm_80. Older architectures (nvcc's default, sm_75) reduce
// with shuffles over the member lanes instead, which every member executes alike: the same
// results, so one binary runs under both runtimes at any architecture.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
enum Reduction { ADD, MIN, MAX };
__device__ unsigned reduce_by_shuffles(unsigned mask, unsigned v, Reduction op) {
    unsigned acc = op == MIN ? 0xffffffffu : 0u;
    for (int src = 0; src < 32; ++src) {
        if (!((mask >> src) & 1u)) continue;
        unsigned other = __shfl_sync(mask, v, src);
        acc = op == ADD ? acc + other : op == MIN ? min(acc, other) : max(acc, other);
    }
    return acc;
}
#define REDUCE_ADD(mask, v) reduce_by_shuffles(mask, v, ADD)
#define REDUCE_MIN(mask, v) reduce_by_shuffles(mask, v, MIN)
#define REDUCE_MAX(mask, v) reduce_by_shuffles(mask, v, MAX)
#else
#define REDUCE_ADD(mask, v) __reduce_add_sync(mask, v)
#define REDUCE_MIN(mask, v) __reduce_min_sync(mask, v)
#define REDUCE_MAX(mask, v) __reduce_max_sync(mask, v)
#endif

__global__ void probe() {
    int lane = threadIdx.x;
    int v = 100 + lane;   // each lane's own value
    for (int c = 0; c < CASES; ++c) out[c][lane] = -1;
    __syncwarp();
    // 0: shfl.down offset 16, mask = lanes < 8, only lanes < 8 execute (sources 16..23 diverged)
    unsigned m8 = __ballot_sync(0xffffffff, lane < 8);
    if (lane < 8) out[0][lane] = __shfl_down_sync(m8, v, 16);
    // 1: shfl.down offset 4, same mask: sources 4..11, lanes 8..11 outside
    if (lane < 8) out[1][lane] = __shfl_down_sync(m8, v, 4);
    // 2: shfl.up offset 2
    if (lane < 8) out[2][lane] = __shfl_up_sync(m8, v, 2);
    // 3: shfl.xor 8 (partner 8..15, outside)
    if (lane < 8) out[3][lane] = __shfl_xor_sync(m8, v, 8);
    // 4: shfl.idx from lane 20
    if (lane < 8) out[4][lane] = __shfl_sync(m8, v, 20);
    // 5: shfl.idx from lane 3 (inside)
    if (lane < 8) out[5][lane] = __shfl_sync(m8, v, 3);
    // 6: full mask but lanes >= 16 diverged to another path doing a different shuffle
    if (lane < 16) out[6][lane] = __shfl_down_sync(0x0000ffff, v, 8);
    else out[7][lane] = __shfl_down_sync(0xffff0000, v * 2, 8);
    // 8: odd lanes mask, shfl.xor 1 (partners even: outside)
    unsigned modd = 0xaaaaaaaau;
    if (lane & 1) out[8][lane] = __shfl_xor_sync(modd, v, 1);
    // 9: odd lanes, shfl.xor 2 (partners odd: inside)
    if (lane & 1) out[9][lane] = __shfl_xor_sync(modd, v, 2);
    // 10: width 8 segments, down 4, mask lanes<8
    if (lane < 8) out[10][lane] = __shfl_down_sync(m8, v, 4, 8);
    // 11: vote.any / 12: vote.all / 13: ballot with partial mask where outside lanes would vote true
    if (lane < 8) out[11][lane] = __any_sync(m8, lane == 10);
    if (lane < 8) out[12][lane] = __all_sync(m8, lane < 8);
    if (lane < 8) out[13][lane] = (int)__ballot_sync(m8, 1);
    // 14: match.any with partial mask
    if (lane < 8) out[14][lane] = (int)__match_any_sync(m8, lane / 2);
    // 15: redux add with partial mask
    if (lane < 8) out[15][lane] = (int)REDUCE_ADD(m8, (unsigned)v);
    // 16: redux min, 17: redux max over odd lanes
    if (lane & 1) out[16][lane] = (int)REDUCE_MIN(modd, (unsigned)v);
    if (lane & 1) out[17][lane] = (int)REDUCE_MAX(modd, (unsigned)v);
    // 18: activemask in divergent code
    if (lane < 12) out[18][lane] = (int)__activemask();
    // 19: shuffle value of a float, down 16, mask lanes < 8
    if (lane < 8) out[19][lane] = (int)__shfl_down_sync(m8, (float)v * 0.5f, 16);
    __syncwarp();
}

// 20..23: lanes that exited before the shuffle (launch with 32 threads, lanes >= 8 return).
__global__ void probe_exited() {
    int lane = threadIdx.x;
    int v = 100 + lane;
    if (lane >= 8) return;
    unsigned m8 = 0xffu;
    out[20][lane] = __shfl_down_sync(m8, v, 16);
    out[21][lane] = __shfl_down_sync(m8, v, 4);
    out[22][lane] = __shfl_xor_sync(m8, v, 8);
    out[23][lane] = __shfl_sync(m8, v, 31);
}

// Uninitialised case rows stay -1 from the first kernel for lanes that never executed them.
int main() {
    probe<<<1, 32>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    probe_exited<<<1, 32>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    static int host[CASES][32];
    CHECK(cudaMemcpyFromSymbol(host, out, sizeof host));
    for (int c = 0; c < CASES; ++c) {
        printf("case %2d:", c);
        for (int l = 0; l < 32; ++l) printf(" %d", host[c][l]);
        printf("\n");
    }
    return 0;
}
