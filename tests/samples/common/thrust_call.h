// Thrust's errors as the samples' other errors: a thrust::system_error names the call and ends
// the program; then the device is waited for.
#pragma once
#include <thrust/system_error.h>
#include "helpers.h"

template <typename Call>
void thrustCall(const char *what, Call call) {
    try {
        call();
    } catch (const thrust::system_error &e) {
        fprintf(stderr, "%s: %s\n", what, e.what());
        exit(EXIT_FAILURE);
    }
    checkCudaErrors(cudaDeviceSynchronize());
}
