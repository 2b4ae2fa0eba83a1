// Prefix sum (exclusive scan) of several lengths up to the sample's default, checked against
// the host.
#include <vector>
#include "../common/helpers.h"
#include "scan.h"

int main(int argc, char **argv) {
    int maxN = sizeArg(argc, argv, 1 << 24);
    const int lengths[] = {1, 1000, 1024, 1025, 123457, maxN};
    bool ok = true;
    for (int n : lengths) {
        std::vector<unsigned> host(n), result(n);
        Lcg rng(n);
        for (int i = 0; i < n; ++i) host[i] = rng.next() & 15;
        unsigned *in, *out;
        checkCudaErrors(cudaMalloc(&in, n * sizeof(unsigned)));
        checkCudaErrors(cudaMalloc(&out, n * sizeof(unsigned)));
        checkCudaErrors(cudaMemcpy(in, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        EventTimer timer;
        timer.start();
        exclusiveScan(in, out, n);
        float ms = timer.stop();
        checkCudaErrors(cudaMemcpy(result.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        unsigned running = 0;
        bool good = true;
        for (int i = 0; i < n; ++i) {
            good &= result[i] == running;
            running += host[i];
        }
        printf("n = %8d: total %u %s\n", n, result[n - 1] + host[n - 1], good ? "ok" : "WRONG");
        printf("  time: %.3f ms\n", ms);
        ok &= good;
        checkCudaErrors(cudaFree(in));
        checkCudaErrors(cudaFree(out));
    }
    return finish("scan_blelloch", ok);
}
