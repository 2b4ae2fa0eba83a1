// A producer/consumer pipeline over streams: chunks of a signal are copied in from pinned
// memory, filtered and reduced on one of four non-blocking streams, and each stream's results
// are handed to the host by callbacks (cudaLaunchHostFunc and the older cudaStreamAddCallback)
// that run in stream order. A final stream waits on every stream's event
// (cudaStreamWaitEvent) before a combining kernel launched with cudaLaunchKernelEx and launch
// attributes (priority, programmatic stream serialization off). Filter taps in __constant__
// memory; double-precision sums with atomicAdd on doubles. Default: 64 chunks of 2^16 samples.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#define CUDA_OK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s returned %s\n", __FILE__, __LINE__, #call,          \
                    cudaGetErrorName(e_));                                                 \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

constexpr int kTaps = 9;
constexpr int kStreams = 4;
__constant__ float c_taps[kTaps];

// A 9-tap FIR filter over one chunk (zero outside it), then the chunk's sum and energy added
// to its slot with double atomics.
__global__ void filterChunk(const float *__restrict__ in, float *__restrict__ out, int len,
                            double *__restrict__ stats) {
    __shared__ double partial[2];
    if (threadIdx.x < 2) partial[threadIdx.x] = 0.0;
    __syncthreads();
    double sum = 0, energy = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        float acc = 0.f;
#pragma unroll
        for (int k = 0; k < kTaps; ++k) {
            int j = i + k - kTaps / 2;
            acc += c_taps[k] * (j >= 0 && j < len ? in[j] : 0.f);
        }
        out[i] = acc;
        sum += acc;
        energy += double(acc) * acc;
    }
    atomicAdd(&partial[0], sum);
    atomicAdd(&partial[1], energy);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&stats[0], partial[0]);
        atomicAdd(&stats[1], partial[1]);
    }
}

// Combines every chunk's statistics: the totals and the chunk of largest energy.
__global__ void combine(const double *__restrict__ stats, int chunks, double *__restrict__ totals,
                        int *__restrict__ loudest) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double s = 0, e = 0, best = -1;
    int at = -1;
    for (int c = 0; c < chunks; ++c) {
        s += stats[2 * c];
        e += stats[2 * c + 1];
        if (stats[2 * c + 1] > best) best = stats[2 * c + 1], at = c;
    }
    totals[0] = s;
    totals[1] = e;
    *loudest = at;
}

// What the host callbacks record: the order in which each stream's chunks completed.
struct Ledger {
    std::mutex lock;
    std::vector<int> completed[kStreams];
    std::atomic<int> legacyCallbacks{0};
};

struct ChunkDone {
    Ledger *ledger;
    int stream, chunk;
};

static void CUDART_CB onChunkDone(void *data) {
    auto *done = static_cast<ChunkDone *>(data);
    std::lock_guard<std::mutex> guard(done->ledger->lock);
    done->ledger->completed[done->stream].push_back(done->chunk);
}

static void CUDART_CB onStreamDrained(cudaStream_t, cudaError_t status, void *data) {
    if (status == cudaSuccess) static_cast<Ledger *>(data)->legacyCallbacks++;
}

int main(int argc, char **argv) {
    const int len = argc > 1 ? atoi(argv[1]) : 1 << 16;
    const int chunks = 64;
    const float taps[kTaps] = {0.02f, 0.05f, 0.1f, 0.15f, 0.36f, 0.15f, 0.1f, 0.05f, 0.02f};
    CUDA_OK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));

    float *hIn, *hOut;
    CUDA_OK(cudaMallocHost(&hIn, size_t(chunks) * len * sizeof(float)));
    CUDA_OK(cudaMallocHost(&hOut, size_t(chunks) * len * sizeof(float)));
    for (int c = 0; c < chunks; ++c)
        for (int i = 0; i < len; ++i)
            hIn[size_t(c) * len + i] = std::sin(0.001f * i * (c + 1)) * (1.f + 0.01f * c);
    float *dIn, *dOut;
    double *dStats, *dTotals;
    int *dLoudest;
    CUDA_OK(cudaMalloc(&dIn, size_t(chunks) * len * sizeof(float)));
    CUDA_OK(cudaMalloc(&dOut, size_t(chunks) * len * sizeof(float)));
    CUDA_OK(cudaMalloc(&dStats, 2 * chunks * sizeof(double)));
    CUDA_OK(cudaMalloc(&dTotals, 2 * sizeof(double)));
    CUDA_OK(cudaMalloc(&dLoudest, sizeof(int)));
    CUDA_OK(cudaMemset(dStats, 0, 2 * chunks * sizeof(double)));

    int leastPriority = 0, greatestPriority = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority));
    cudaStream_t streams[kStreams], final;
    cudaEvent_t drained[kStreams];
    for (int s = 0; s < kStreams; ++s) {
        CUDA_OK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CUDA_OK(cudaEventCreateWithFlags(&drained[s], cudaEventDisableTiming));
    }
    CUDA_OK(cudaStreamCreateWithPriority(&final, cudaStreamNonBlocking, greatestPriority));

    Ledger ledger;
    std::vector<ChunkDone> done(chunks);
    for (int c = 0; c < chunks; ++c) {
        int s = c % kStreams;
        size_t at = size_t(c) * len;
        done[c] = {&ledger, s, c};
        CUDA_OK(cudaMemcpyAsync(dIn + at, hIn + at, len * sizeof(float), cudaMemcpyHostToDevice,
                                streams[s]));
        filterChunk<<<64, 256, 0, streams[s]>>>(dIn + at, dOut + at, len, dStats + 2 * c);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpyAsync(hOut + at, dOut + at, len * sizeof(float), cudaMemcpyDeviceToHost,
                                streams[s]));
        CUDA_OK(cudaLaunchHostFunc(streams[s], onChunkDone, &done[c]));
    }
    for (int s = 0; s < kStreams; ++s) {
        CUDA_OK(cudaStreamAddCallback(streams[s], onStreamDrained, &ledger, 0));
        CUDA_OK(cudaEventRecord(drained[s], streams[s]));
        CUDA_OK(cudaStreamWaitEvent(final, drained[s], 0));
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(1);
    config.blockDim = dim3(32);
    config.stream = final;
    cudaLaunchAttribute attrs[2];
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = greatestPriority;
    attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[1].val.programmaticStreamSerializationAllowed = 0;
    config.attrs = attrs;
    config.numAttrs = 2;
    CUDA_OK(cudaLaunchKernelEx(&config, combine, (const double *)dStats, chunks, dTotals, dLoudest));
    double totals[2];
    int loudest = -1;
    CUDA_OK(cudaMemcpyAsync(totals, dTotals, sizeof(totals), cudaMemcpyDeviceToHost, final));
    CUDA_OK(cudaMemcpyAsync(&loudest, dLoudest, sizeof(int), cudaMemcpyDeviceToHost, final));
    CUDA_OK(cudaStreamSynchronize(final));
    for (int s = 0; s < kStreams; ++s) CUDA_OK(cudaStreamSynchronize(streams[s]));
    std::vector<double> stats(2 * chunks);
    CUDA_OK(cudaMemcpy(stats.data(), dStats, stats.size() * sizeof(double), cudaMemcpyDeviceToHost));

    // Host reference.
    size_t filterBad = 0;
    double refSum = 0, refEnergy = 0, best = -1;
    int refLoudest = -1;
    int statsBad = 0;
    for (int c = 0; c < chunks; ++c) {
        double s = 0, e = 0;
        for (int i = 0; i < len; ++i) {
            float acc = 0.f;
            for (int k = 0; k < kTaps; ++k) {
                int j = i + k - kTaps / 2;
                acc += taps[k] * (j >= 0 && j < len ? hIn[size_t(c) * len + j] : 0.f);
            }
            float got = hOut[size_t(c) * len + i];
            filterBad += std::fabs(got - acc) > 1e-5f;
            s += got, e += double(got) * got;
        }
        statsBad += std::fabs(stats[2 * c] - s) > 1e-6 * (1 + std::fabs(s)) ||
                    std::fabs(stats[2 * c + 1] - e) > 1e-9 * e;
        refSum += s, refEnergy += e;
        if (e > best) best = e, refLoudest = c;
    }
    bool orderOk = true;
    for (int s = 0; s < kStreams; ++s) {
        std::vector<int> want;
        for (int c = s; c < chunks; c += kStreams) want.push_back(c);
        orderOk &= ledger.completed[s] == want;
    }
    bool totalsOk = std::fabs(totals[0] - refSum) <= 1e-6 * (1 + std::fabs(refSum)) &&
                    std::fabs(totals[1] - refEnergy) <= 1e-9 * refEnergy;
    printf("chunks %d of %d samples on %d streams\n", chunks, len, kStreams);
    printf("filtered samples off: %zu, chunk statistics off: %d\n", filterBad, statsBad);
    printf("host callbacks in stream order: %s, stream callbacks: %d\n", orderOk ? "yes" : "NO",
           ledger.legacyCallbacks.load());
    printf("totals %s, loudest chunk %d (host %d)\n", totalsOk ? "match" : "DIFFER", loudest,
           refLoudest);
    bool ok = filterBad == 0 && statsBad == 0 && orderOk && ledger.legacyCallbacks == kStreams &&
              totalsOk && loudest == refLoudest;
    for (int s = 0; s < kStreams; ++s) {
        CUDA_OK(cudaEventDestroy(drained[s]));
        CUDA_OK(cudaStreamDestroy(streams[s]));
    }
    CUDA_OK(cudaStreamDestroy(final));
    CUDA_OK(cudaFreeHost(hIn));
    CUDA_OK(cudaFreeHost(hOut));
    CUDA_OK(cudaFree(dIn));
    CUDA_OK(cudaFree(dOut));
    CUDA_OK(cudaFree(dStats));
    CUDA_OK(cudaFree(dTotals));
    CUDA_OK(cudaFree(dLoudest));
    printf("stream_callbacks: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
