// Inclusive scans of 2^24 elements with the three-kernel warp-shuffle scan (scan.cuh), for
// 32-bit unsigned values with 256-thread blocks and 64-bit values with 1024-thread blocks,
// each checked exactly against a host scan. Each scan runs a few times over the same input
// (the output must not change). The first argument is log2 of the element count.
#include <vector>
#include "../common/helpers.h"
#include "scan.cuh"

template <typename T, int BLOCK>
static bool run(const char *name, int n, unsigned seed, int repeats) {
    std::vector<T> input(n), expected(n);
    Lcg rng(seed);
    T running = 0;
    for (int i = 0; i < n; ++i) {
        input[i] = sizeof(T) == 8 ? (T)rng.next() : (T)(rng.next() & 0xff);
        running += input[i];
        expected[i] = running;
    }
    int tiles = (n + BLOCK - 1) / BLOCK;
    T *dIn, *dOut, *dTileSums;
    checkCudaErrors(cudaMalloc(&dIn, n * sizeof(T)));
    checkCudaErrors(cudaMalloc(&dOut, n * sizeof(T)));
    checkCudaErrors(cudaMalloc(&dTileSums, tiles * sizeof(T)));
    checkCudaErrors(cudaMemcpy(dIn, input.data(), n * sizeof(T), cudaMemcpyHostToDevice));

    for (int r = 0; r < repeats; ++r) {
        scanTiles<T, BLOCK><<<tiles, BLOCK>>>(dIn, dOut, dTileSums, n);
        checkCudaErrors(cudaGetLastError());
        scanTileSums<T, BLOCK><<<1, BLOCK>>>(dTileSums, tiles);
        checkCudaErrors(cudaGetLastError());
        addTileOffsets<T, BLOCK><<<tiles, BLOCK>>>(dOut, dTileSums, n);
        checkCudaErrors(cudaGetLastError());
    }
    checkCudaErrors(cudaDeviceSynchronize());

    std::vector<T> got(n);
    checkCudaErrors(cudaMemcpy(got.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
    size_t errors = 0, first = n;
    for (int i = 0; i < n; ++i)
        if (got[i] != expected[i]) {
            if (errors++ == 0) first = i;
        }
    printf("%s: %d elements in %d tiles of %d, %zu mismatches", name, n, tiles, BLOCK, errors);
    if (errors) printf(" (first at %zu)", first);
    printf("\n");
    checkCudaErrors(cudaFree(dIn));
    checkCudaErrors(cudaFree(dOut));
    checkCudaErrors(cudaFree(dTileSums));
    return errors == 0;
}

int main(int argc, char **argv) {
    int log2n = sizeArg(argc, argv, 24);
    if (log2n < 1 || log2n > 26) {
        fprintf(stderr, "scan_three_kernel: log2 size %d outside 1..26\n", log2n);
        return EXIT_FAILURE;
    }
    int n = 1 << log2n;
    checkCudaErrors(cudaSetDevice(0));
    bool ok = run<unsigned, 256>("u32 scan", n, 1, 3);
    ok = run<unsigned long long, 1024>("u64 scan", n - 77 > 0 ? n - 77 : n, 2, 2) && ok;
    return finish("scan_three_kernel", ok);
}
