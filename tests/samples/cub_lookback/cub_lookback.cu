// CUB's single-pass algorithms whose decoupled look-back publishes a 16-byte tile descriptor
// (status and a key-value pair in one aligned .v2.u64 store, read back with one .v2.u64 load):
// DeviceRunLengthEncode::Encode and DeviceReduce::ReduceByKey, repeated on the same input so
// that a descriptor ever seen half written shows as a wrong or missing run. Default: 2^20
// values, 10 repetitions (arguments: size, repetitions).
#include <cub/cub.cuh>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_TRY(call)                                                                     \
    do {                                                                                   \
        cudaError_t err = (call);                                                          \
        if (err != cudaSuccess) {                                                          \
            fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,         \
                    cudaGetErrorString(err));                                              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int reps = argc > 2 ? atoi(argv[2]) : 10;
    // Short runs of keys, each with a weight.
    std::vector<int> keys(n), weights(n);
    unsigned s = 77;
    for (int i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        keys[i] = int((s >> 9) % 20001) / 2000 + (i / 97) % 3;
        weights[i] = int(s >> 28);
    }
    std::vector<int> runKeys, runLengths, runSums;
    for (int i = 0; i < n; ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) {
            runKeys.push_back(keys[i]);
            runLengths.push_back(0);
            runSums.push_back(0);
        }
        runLengths.back()++;
        runSums.back() += weights[i];
    }
    int *dKeys, *dWeights, *dUnique, *dOut, *dCount;
    CUDA_TRY(cudaMalloc(&dKeys, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&dWeights, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&dUnique, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&dOut, n * sizeof(int)));
    CUDA_TRY(cudaMalloc(&dCount, sizeof(int)));
    CUDA_TRY(cudaMemcpy(dKeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dWeights, weights.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    size_t encodeBytes = 0, reduceBytes = 0;
    CUDA_TRY(cub::DeviceRunLengthEncode::Encode(nullptr, encodeBytes, dKeys, dUnique, dOut,
                                                dCount, n));
    CUDA_TRY(cub::DeviceReduce::ReduceByKey(nullptr, reduceBytes, dKeys, dUnique, dWeights, dOut,
                                            dCount, cuda::std::plus<int>(), n));
    void *temp;
    CUDA_TRY(cudaMalloc(&temp, std::max(encodeBytes, reduceBytes)));

    // check: the run count, the unique keys and the per-run values against the host's.
    auto check = [&](const std::vector<int> &expected) {
        int count = 0;
        CUDA_TRY(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
        if (count != int(expected.size())) return false;
        std::vector<int> unique(count), values(count);
        CUDA_TRY(cudaMemcpy(unique.data(), dUnique, count * sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_TRY(cudaMemcpy(values.data(), dOut, count * sizeof(int), cudaMemcpyDeviceToHost));
        return unique == runKeys && values == expected;
    };
    int encodeWrong = 0, reduceWrong = 0;
    for (int r = 0; r < reps; ++r) {
        CUDA_TRY(cudaMemset(dOut, 0xff, n * sizeof(int)));
        CUDA_TRY(cub::DeviceRunLengthEncode::Encode(temp, encodeBytes, dKeys, dUnique, dOut,
                                                    dCount, n));
        encodeWrong += !check(runLengths);
        CUDA_TRY(cudaMemset(dOut, 0xff, n * sizeof(int)));
        CUDA_TRY(cub::DeviceReduce::ReduceByKey(temp, reduceBytes, dKeys, dUnique, dWeights, dOut,
                                                dCount, cuda::std::plus<int>(), n));
        reduceWrong += !check(runSums);
    }
    printf("values %d, runs %zu, repetitions %d\n", n, runKeys.size(), reps);
    printf("RunLengthEncode::Encode wrong in %d repetitions\n", encodeWrong);
    printf("DeviceReduce::ReduceByKey wrong in %d repetitions\n", reduceWrong);
    for (void *p : {(void *)dKeys, (void *)dWeights, (void *)dUnique, (void *)dOut, (void *)dCount,
                    temp})
        CUDA_TRY(cudaFree(p));
    bool ok = encodeWrong == 0 && reduceWrong == 0;
    printf("cub_lookback: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
