// What every program of the sanitizer suite shares: run, synchronize, and print the outcome.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

// Prints `NAME: <error name>` for the first failing call and returns whether all succeeded.
static bool report(const char* name, cudaError_t launch, cudaError_t sync) {
    cudaError_t err = launch != cudaSuccess ? launch : sync;
    printf("%s: %s\n", name, cudaGetErrorName(err));
    return err == cudaSuccess;
}
