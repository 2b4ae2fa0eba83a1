// Shared helpers of the sample programs: error checking in the style of CUDA's samples, an
// event timer and the final PASS/FAIL line.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define checkCudaErrors(call)                                                              \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorName(err_), cudaGetErrorString(err_));                     \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)
#define getLastCudaError(msg) checkCudaErrors((fprintf(stderr, "%s", ""), cudaGetLastError()))

// Times device work between start() and stop() with CUDA events.
struct EventTimer {
    cudaEvent_t begin, end;
    EventTimer() {
        checkCudaErrors(cudaEventCreate(&begin));
        checkCudaErrors(cudaEventCreate(&end));
    }
    ~EventTimer() {
        cudaEventDestroy(begin);
        cudaEventDestroy(end);
    }
    void start(cudaStream_t s = 0) { checkCudaErrors(cudaEventRecord(begin, s)); }
    float stop(cudaStream_t s = 0) {
        float ms = 0;
        checkCudaErrors(cudaEventRecord(end, s));
        checkCudaErrors(cudaEventSynchronize(end));
        checkCudaErrors(cudaEventElapsedTime(&ms, begin, end));
        return ms;
    }
};

// The problem size: the first argument when given, else the sample's default.
inline int sizeArg(int argc, char **argv, int fallback) {
    return argc > 1 ? atoi(argv[1]) : fallback;
}

inline int finish(const char *name, bool ok) {
    printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

// Runs a CUB device-wide call twice, as CUB's API asks: once to size its temporary storage,
// once with that storage; then waits for it and frees the storage.
template <typename Call>
void withCubTempStorage(Call call) {
    void *temp = nullptr;
    size_t bytes = 0;
    checkCudaErrors(call(temp, bytes));
    checkCudaErrors(cudaMalloc(&temp, bytes));
    checkCudaErrors(call(temp, bytes));
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaFree(temp));
}

// A small deterministic generator for inputs, the same on every platform.
struct Lcg {
    unsigned state;
    explicit Lcg(unsigned seed) : state(seed) {}
    unsigned next() { return state = state * 1664525u + 1013904223u; }
    float uniform() { return (next() >> 8) * (1.0f / 16777216.0f); }
};
