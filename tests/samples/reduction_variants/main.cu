// Parallel reduction: four kernel variants at four block sizes, each checked against the host.
#include "../common/helpers.h"
#include "reduction.h"

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 1 << 24);
    int *host = (int *)malloc(n * sizeof(int)), *dev;
    long long expect = 0;
    Lcg rng(11);
    for (int i = 0; i < n; ++i) expect += host[i] = (int)(rng.next() & 0xff);
    checkCudaErrors(cudaMalloc(&dev, n * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dev, host, n * sizeof(int), cudaMemcpyHostToDevice));
    bool ok = true;
    const int sizes[] = {64, 128, 256, 512};
    for (int variant = 0; variant < 4; ++variant) {
        for (int threads : sizes) {
            int blocks = variant < 2 ? (n + threads - 1) / threads : 64;
            EventTimer timer;
            timer.start();
            long long got = reduceOnDevice(variant, dev, n, threads, blocks);
            float ms = timer.stop();
            printf("%-11s %3d threads: %lld %s\n", variantName(variant), threads, got,
                   got == expect ? "ok" : "WRONG");
            printf("  time: %.3f ms\n", ms);
            ok &= got == expect;
        }
    }
    checkCudaErrors(cudaFree(dev));
    free(host);
    return finish("reduction_variants", ok);
}
