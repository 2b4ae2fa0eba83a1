// Kernels of tests/device_services.rs: device printf, malloc and free called from compiled
// code. device_services.ptx is this file compiled by
//   nvcc -ptx -O3 -arch=sm_75 -o device_services.ptx device_services.cu   (CUDA 13.0)
#include <cstdio>
// Each thread prints two lines with mixed conversions; odd threads print a string too.
extern "C" __global__ void print_values(const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    printf("[%d] v=%d hex=%#x f=%.3f\n", i, v, v, v * 0.5);
    if (i & 1) printf("[%d] %5s|%-4d|%c\n", i, "odd", v, 'a' + (i % 26));
    printf("[%d] end %ld\n", i, (long)v * 1000000007L);
}
// Each thread allocates a buffer, fills it, sums it and records it; all but each block's
// thread 0 free theirs.
extern "C" __global__ void heap_sums(const int *in, unsigned long long *out, int **kept, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int len = 1 + in[i] % 7;
    int *buf = (int *)malloc(len * sizeof(int));
    if (!buf) { out[i] = ~0ull; return; }
    for (int k = 0; k < len; k++) buf[k] = in[i] + k;
    unsigned long long s = 0;
    for (int k = 0; k < len; k++) s += buf[k];
    out[i] = s;
    kept[i] = buf;
    if (threadIdx.x != 0) free(buf);
}
// free of a pointer malloc did not return: a fault.
extern "C" __global__ void bad_free(int *p) {
    free(p + 1);
}
// A string argument read from device memory: a bad pointer faults.
extern "C" __global__ void print_string(const char *s) {
    printf("[%d] %s\n", threadIdx.x, s);
}
// Prints, stores out[i] and prints again: a thread past the end of `out` faults after its
// block has printed.
extern "C" __global__ void print_then_store(int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    printf("[%d] before\n", i);
    out[i] = i;
    printf("[%d] after\n", i);
}
// Frees its buffer in a loop that goes on storing to it through the same instruction: a use
// after free.
extern "C" __global__ void use_after_free(int rounds) {
    int *p = (int *)malloc(16);
#pragma unroll 1
    for (int r = 0; r < rounds; r++) {
        p[r & 3] = r;
        if (r == 0) free(p);
    }
}
