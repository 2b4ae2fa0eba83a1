// Shared by the perf_*.cu programs: CUDA error checks, the problem size from the command line,
// a deterministic input generator, and the closing line the benchmark and the CI test read.
// Each program runs at its GPU version's default size unless given a smaller one, checks its
// result against a host reference, and ends with "perf_NAME: ok" (exit 0) or "perf_NAME: FAILED".
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorName(err_));                                                \
            exit(EXIT_FAILURE);                                                             \
        }                                                                                   \
    } while (0)
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// The argument at `index` as an integer, or `fallback` when absent.
inline long argOr(int argc, char **argv, int index, long fallback) {
    return argc > index ? atol(argv[index]) : fallback;
}

// A small linear congruential generator, the same on every platform.
struct Lcg {
    unsigned state;
    explicit Lcg(unsigned seed) : state(seed) {}
    unsigned next() { return state = state * 1664525u + 1013904223u; }
    float uniform() { return (next() >> 8) * (1.0f / 16777216.0f); }
};

inline int finish(const char *name, bool ok) {
    printf("%s: %s\n", name, ok ? "ok" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
