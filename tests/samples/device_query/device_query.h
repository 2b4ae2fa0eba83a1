// Shared by the two files of the device_query sample.
#pragma once
#include <cuda_runtime.h>

// Prints every field of `p`, one line each.
void printProperties(const cudaDeviceProp &p);
