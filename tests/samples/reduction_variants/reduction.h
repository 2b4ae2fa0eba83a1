// The reduction variants of reduction_kernels.cu, launched from main.cu.
#pragma once
// Sums n ints on the device with variant 0..3; returns the sum.
long long reduceOnDevice(int variant, const int *deviceIn, int n, int threads, int blocks);
const char *variantName(int variant);
