// Stream-ordered allocation under pressure, the way CUDA's samples use it: a pool of its own
// that keeps what is freed (release threshold), blocks allocated, used and freed on two
// streams, freed memory reused on the same stream and on another stream after an event,
// the used/reserved attributes and their highs read before and after, the pool trimmed while
// some blocks are in use and once all are free, and the default pool releasing what it holds
// at a synchronisation under its threshold of 0. Prints what a GPU reports too: the used
// bytes exactly, the reserved bytes as relations (a GPU reserves in chunks of its own size).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T result, const char *func, const char *file, int line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}
#define require(cond)                                                              \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(EXIT_FAILURE);                                                    \
        }                                                                          \
    } while (0)

const size_t MiB = 1 << 20;
const size_t BLOCK_BYTES = 2 * MiB;               // one block: a GPU's allocation granularity
const int BLOCK_INTS = (int)(BLOCK_BYTES / sizeof(int));
const int PER_STREAM = 4;                         // blocks live on each stream at once
const int ROUNDS = 6;

template <typename T>
__global__ void fillBlock(T *block, T seed, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        block[i] = seed + (T)(i % 1024);
}

template <typename T>
__global__ void sumBlock(const T *block, unsigned long long *total, int n) {
    unsigned long long mine = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        mine += (unsigned long long)block[i];
    atomicAdd(total, mine);
}

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr which) {
    uint64_t value = 0;
    checkCudaErrors(cudaMemPoolGetAttribute(pool, which, &value));
    return value;
}

struct Snapshot {
    uint64_t used, usedHigh, reserved, reservedHigh;
};

static Snapshot snapshot(cudaMemPool_t pool) {
    return {attr(pool, cudaMemPoolAttrUsedMemCurrent), attr(pool, cudaMemPoolAttrUsedMemHigh),
            attr(pool, cudaMemPoolAttrReservedMemCurrent),
            attr(pool, cudaMemPoolAttrReservedMemHigh)};
}

static const char *yes(bool b) { return b ? "yes" : "no"; }

// The sum sumBlock finds in a block filled with `seed`.
static unsigned long long expected(int seed) {
    unsigned long long one = 0;
    for (int i = 0; i < 1024; i++) one += (unsigned long long)(seed + i);
    return one * (BLOCK_INTS / 1024);
}

int main() {
    int device = 0, supported = 0;
    checkCudaErrors(cudaSetDevice(device));
    checkCudaErrors(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    require(supported == 1);

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    checkCudaErrors(cudaMemPoolCreate(&pool, &props));
    uint64_t keepAll = UINT64_MAX;
    checkCudaErrors(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
    Snapshot fresh = snapshot(pool);
    printf("fresh pool: used %llu, reserved %llu\n", (unsigned long long)fresh.used,
           (unsigned long long)fresh.reserved);
    require(fresh.used == 0 && fresh.reserved == 0);

    cudaStream_t streams[2];
    for (auto &s : streams) checkCudaErrors(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *totals;
    checkCudaErrors(cudaMallocManaged(&totals, 2 * sizeof(unsigned long long)));

    // Pressure: every round, each stream holds PER_STREAM blocks at once, fills and sums them,
    // and frees them; the next round's blocks come from what the pool kept.
    int *blocks[2][PER_STREAM];
    uint64_t usedWhileLive = 0, reservedAfterRound1 = 0;
    bool reservedSteady = true;
    for (int round = 0; round < ROUNDS; round++) {
        totals[0] = totals[1] = 0;
        for (int s = 0; s < 2; s++)
            for (int b = 0; b < PER_STREAM; b++)
                checkCudaErrors(cudaMallocFromPoolAsync((void **)&blocks[s][b], BLOCK_BYTES, pool,
                                                        streams[s]));
        usedWhileLive = attr(pool, cudaMemPoolAttrUsedMemCurrent);
        for (int s = 0; s < 2; s++)
            for (int b = 0; b < PER_STREAM; b++) {
                int seed = round * 100 + s * 10 + b;
                fillBlock<int><<<64, 256, 0, streams[s]>>>(blocks[s][b], seed, BLOCK_INTS);
                sumBlock<int><<<64, 256, 0, streams[s]>>>(blocks[s][b], &totals[s], BLOCK_INTS);
                checkCudaErrors(cudaGetLastError());
                checkCudaErrors(cudaFreeAsync(blocks[s][b], streams[s]));
            }
        for (auto &s : streams) checkCudaErrors(cudaStreamSynchronize(s));
        for (int s = 0; s < 2; s++) {
            unsigned long long want = 0;
            for (int b = 0; b < PER_STREAM; b++) want += expected(round * 100 + s * 10 + b);
            require(totals[s] == want);
        }
        uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
        if (round == 0) reservedAfterRound1 = reserved;
        reservedSteady = reservedSteady && reserved == reservedAfterRound1;
    }
    Snapshot pressed = snapshot(pool);
    printf("under pressure: %d rounds of %d blocks of %zu MiB on 2 streams, sums right\n", ROUNDS,
           PER_STREAM, BLOCK_BYTES / MiB);
    printf("  used while live %llu, used after the frees %llu, used high %llu\n",
           (unsigned long long)usedWhileLive, (unsigned long long)pressed.used,
           (unsigned long long)pressed.usedHigh);
    printf("  reserved covers the high: %s; kept after the frees: %s; the same after every "
           "round (blocks reused): %s\n",
           yes(pressed.reserved >= 2 * PER_STREAM * BLOCK_BYTES),
           yes(pressed.reserved == pressed.reservedHigh), yes(reservedSteady));
    require(usedWhileLive == 2 * PER_STREAM * BLOCK_BYTES);
    require(pressed.used == 0 && pressed.usedHigh == 2 * PER_STREAM * BLOCK_BYTES);
    require(pressed.reserved >= 2 * PER_STREAM * BLOCK_BYTES && reservedSteady);

    // Reuse on the same stream, and on another stream after an event.
    int *first, *again, *other;
    cudaEvent_t freed;
    checkCudaErrors(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming));
    checkCudaErrors(cudaMallocFromPoolAsync((void **)&first, BLOCK_BYTES, pool, streams[0]));
    fillBlock<int><<<64, 256, 0, streams[0]>>>(first, 7, BLOCK_INTS);
    checkCudaErrors(cudaFreeAsync(first, streams[0]));
    checkCudaErrors(cudaMallocFromPoolAsync((void **)&again, BLOCK_BYTES, pool, streams[0]));
    fillBlock<int><<<64, 256, 0, streams[0]>>>(again, 9, BLOCK_INTS);
    checkCudaErrors(cudaFreeAsync(again, streams[0]));
    checkCudaErrors(cudaEventRecord(freed, streams[0]));
    checkCudaErrors(cudaStreamWaitEvent(streams[1], freed, 0));
    checkCudaErrors(cudaMallocFromPoolAsync((void **)&other, BLOCK_BYTES, pool, streams[1]));
    totals[1] = 0;
    fillBlock<int><<<64, 256, 0, streams[1]>>>(other, 11, BLOCK_INTS);
    sumBlock<int><<<64, 256, 0, streams[1]>>>(other, &totals[1], BLOCK_INTS);
    checkCudaErrors(cudaFreeAsync(other, streams[1]));
    checkCudaErrors(cudaStreamSynchronize(streams[1]));
    checkCudaErrors(cudaStreamSynchronize(streams[0]));
    Snapshot reused = snapshot(pool);
    printf("reuse: same stream, and another stream after an event: reserved unchanged %s, "
           "sum right %s\n",
           yes(reused.reserved == pressed.reserved), yes(totals[1] == expected(11)));
    require(reused.reserved == pressed.reserved && totals[1] == expected(11));

    // Trimming while blocks are in use, then once all are free.
    int *live[2];
    for (auto &p : live)
        checkCudaErrors(cudaMallocFromPoolAsync((void **)&p, BLOCK_BYTES, pool, streams[0]));
    checkCudaErrors(cudaStreamSynchronize(streams[0]));
    Snapshot before = snapshot(pool);
    checkCudaErrors(cudaMemPoolTrimTo(pool, 0));
    Snapshot trimmedLive = snapshot(pool);
    // Whether the reserve shrinks here depends on the allocator's granularity (an H200 keeps
    // it whole; chevron reserves per block and releases the free ones), so it is not printed.
    printf("trim to 0 with %llu bytes in use: still covers what is used %s, high kept %s\n",
           (unsigned long long)before.used, yes(trimmedLive.reserved >= trimmedLive.used),
           yes(trimmedLive.reservedHigh == pressed.reservedHigh));
    require(before.used == 2 * BLOCK_BYTES && trimmedLive.used == before.used);
    require(trimmedLive.reserved <= before.reserved && trimmedLive.reserved >= before.used);
    for (auto p : live) checkCudaErrors(cudaFreeAsync(p, streams[0]));
    checkCudaErrors(cudaStreamSynchronize(streams[0]));
    uint64_t keptAfterFree = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    checkCudaErrors(cudaMemPoolTrimTo(pool, 0));
    Snapshot trimmed = snapshot(pool);
    printf("all freed: kept %s; trim to 0: used %llu, reserved %llu\n", yes(keptAfterFree > 0),
           (unsigned long long)trimmed.used, (unsigned long long)trimmed.reserved);
    require(keptAfterFree >= 2 * BLOCK_BYTES && trimmed.used == 0 && trimmed.reserved == 0);

    // Highs reset to the current values.
    uint64_t zero = 0;
    checkCudaErrors(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    checkCudaErrors(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    Snapshot reset = snapshot(pool);
    printf("highs reset: used high %llu, reserved high %llu\n",
           (unsigned long long)reset.usedHigh, (unsigned long long)reset.reservedHigh);
    require(reset.usedHigh == 0 && reset.reservedHigh == 0);

    // The default pool: threshold 0, so what it holds goes back at a synchronisation.
    cudaMemPool_t defaultPool;
    checkCudaErrors(cudaDeviceGetDefaultMemPool(&defaultPool, device));
    uint64_t threshold = attr(defaultPool, cudaMemPoolAttrReleaseThreshold);
    int *scratch[3];
    for (auto &p : scratch)
        checkCudaErrors(cudaMallocAsync((void **)&p, BLOCK_BYTES, streams[1]));
    uint64_t defaultUsed = attr(defaultPool, cudaMemPoolAttrUsedMemCurrent);
    for (auto p : scratch) checkCudaErrors(cudaFreeAsync(p, streams[1]));
    checkCudaErrors(cudaStreamSynchronize(streams[1]));
    Snapshot released = snapshot(defaultPool);
    printf("default pool: threshold %llu, used while live %llu, after the frees and a "
           "synchronisation used %llu, reserved %llu\n",
           (unsigned long long)threshold, (unsigned long long)defaultUsed,
           (unsigned long long)released.used, (unsigned long long)released.reserved);
    require(threshold == 0 && defaultUsed == 3 * BLOCK_BYTES);
    require(released.used == 0 && released.reserved == 0);

    // Misuse gets CUDA's codes.
    require(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &zero) ==
            cudaErrorInvalidValue);
    printf("misuse: %s\n", cudaGetErrorName(cudaGetLastError()));

    checkCudaErrors(cudaEventDestroy(freed));
    checkCudaErrors(cudaFree(totals));
    for (auto &s : streams) checkCudaErrors(cudaStreamDestroy(s));
    checkCudaErrors(cudaMemPoolDestroy(pool));
    printf("mempool_pressure: passed\n");
    return 0;
}
