// A program of three translation units built with nvcc -rdc=true: the host code launches
// kernels defined in rdc_kernels.cu, which call device functions of rdc_library.cu, and reads
// and writes rdc_library.cu's `extern __device__` variables by symbol.
#include <vector>
#include "check.h"
#include "rdc.h"
int main() {
    const int n = 1000;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = float(i) * 0.5f;
    const float new_bias[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    CHECK(cudaMemcpyToSymbol(bias, new_bias, sizeof new_bias));
    float* data;
    CHECK(cudaMalloc(&data, n * sizeof(float)));
    CHECK(cudaMemcpy(data, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    transform<<<(n + 127) / 128, 128>>>(data, n);
    CHECK(cudaGetLastError());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), data, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += out[i] != host[i] * 3.0f + new_bias[i % 4];

    std::vector<int> ints(n);
    std::vector<double> doubles(n);
    for (int i = 0; i < n; ++i) ints[i] = i - 500, doubles[i] = (i - 500) * 0.25;
    int* dev_ints;
    double* dev_doubles;
    CHECK(cudaMalloc(&dev_ints, n * sizeof(int)));
    CHECK(cudaMalloc(&dev_doubles, n * sizeof(double)));
    CHECK(cudaMemcpy(dev_ints, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dev_doubles, doubles.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    clamp_all<int><<<(n + 255) / 256, 256>>>(dev_ints, n, -100, 200);
    clamp_all<double><<<(n + 255) / 256, 256>>>(dev_doubles, n, -10.0, 20.5);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ints.data(), dev_ints, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(doubles.data(), dev_doubles, n * sizeof(double), cudaMemcpyDeviceToHost));
    long int_sum = 0;
    double double_sum = 0;
    for (int i = 0; i < n; ++i) int_sum += ints[i], double_sum += doubles[i];

    int* dev_count;
    CHECK(cudaMalloc(&dev_count, sizeof(int)));
    count_calls<<<1, 1>>>(dev_count);
    int counted = 0, by_symbol = 0;
    CHECK(cudaMemcpy(&counted, dev_count, sizeof counted, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&by_symbol, calls, sizeof by_symbol));
    std::printf("transform: wrong %d; clamp: int sum %ld, double sum %.2f; calls %d (by symbol %d)\n",
                wrong, int_sum, double_sum, counted, by_symbol);
    CHECK(cudaFree(data));
    CHECK(cudaFree(dev_ints));
    CHECK(cudaFree(dev_doubles));
    CHECK(cudaFree(dev_count));
    bool ok = wrong == 0 && counted == n && by_symbol == n && int_sum == 34850 &&
              double_sum == 4594.25;
    std::printf("rdc: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
