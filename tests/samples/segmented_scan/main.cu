// Segmented prefix sums by key over 2^22 values, the way sparse and grouped workloads write
// them: keys sorted into runs of 1 to 600 equal values (a segment per run), scanned by
// thrust::inclusive_scan_by_key, thrust::exclusive_scan_by_key with an equality predicate
// grouping four neighbouring keys and an initial value, CUB's InclusiveSumByKey and
// ExclusiveScanByKey with a maximum. Integer results, compared exactly with the host's.
// The first argument is log2 of the value count.
#include <climits>
#include <vector>
#include "../common/helpers.h"
#include "segments.h"

enum class Kind { InclusiveSum, ExclusiveRowSum, ExclusiveMax };

// The host reference of one kind of scan: a new segment wherever `same` says the key changed.
template <typename Same>
static std::vector<int> reference(const std::vector<int> &keys, const std::vector<int> &values, Kind kind,
                                  Same same) {
    std::vector<int> out(keys.size());
    int running = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
        bool head = i == 0 || !same(keys[i - 1], keys[i]);
        switch (kind) {
        case Kind::InclusiveSum:
            running = head ? values[i] : running + values[i];
            out[i] = running;
            break;
        case Kind::ExclusiveRowSum:
            if (head) running = 7;
            out[i] = running;
            running += values[i];
            break;
        case Kind::ExclusiveMax:
            if (head) running = INT_MIN;
            out[i] = running;
            running = running > values[i] ? running : values[i];
            break;
        }
    }
    return out;
}

struct SameKey {
    bool operator()(int a, int b) const { return a == b; }
};

static bool check(const char *what, const int *device, const std::vector<int> &want) {
    std::vector<int> got(want.size());
    checkCudaErrors(cudaMemcpy(got.data(), device, want.size() * sizeof(int), cudaMemcpyDeviceToHost));
    size_t errors = 0;
    for (size_t i = 0; i < want.size(); ++i) errors += got[i] != want[i];
    printf("%s: %zu values, %zu mismatches\n", what, want.size(), errors);
    return errors == 0;
}

int main(int argc, char **argv) {
    int log2n = sizeArg(argc, argv, 22);
    if (log2n < 4 || log2n > 26) {
        fprintf(stderr, "segmented_scan: log2 size %d outside 4..26\n", log2n);
        return EXIT_FAILURE;
    }
    int n = 1 << log2n;
    std::vector<int> keys(n), values(n);
    Lcg rng(4242);
    int key = 0, left = 0, segments = 0;
    for (int i = 0; i < n; ++i) {
        if (left == 0) {
            key += 1 + rng.next() % 3;
            left = 1 + rng.next() % 600;
            ++segments;
        }
        --left;
        keys[i] = key;
        values[i] = (int)(rng.next() % 2001) - 1000;
    }
    printf("segments: %d by key\n", segments);

    int *dKeys, *dValues, *dOut;
    checkCudaErrors(cudaMalloc(&dKeys, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dValues, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dOut, n * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dKeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dValues, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    bool ok = true;
    thrustInclusiveByKey(dKeys, dValues, dOut, n);
    ok = check("thrust::inclusive_scan_by_key", dOut, reference(keys, values, Kind::InclusiveSum, SameKey())) && ok;
    thrustExclusiveByRow(dKeys, dValues, dOut, n);
    ok = check("thrust::exclusive_scan_by_key by row", dOut,
               reference(keys, values, Kind::ExclusiveRowSum, SameRow())) && ok;
    cubInclusiveSumByKey(dKeys, dValues, dOut, n);
    ok = check("cub::DeviceScan::InclusiveSumByKey", dOut, reference(keys, values, Kind::InclusiveSum, SameKey())) && ok;
    cubExclusiveMaxByKey(dKeys, dValues, dOut, n);
    ok = check("cub::DeviceScan::ExclusiveScanByKey max", dOut,
               reference(keys, values, Kind::ExclusiveMax, SameKey())) && ok;

    checkCudaErrors(cudaFree(dKeys));
    checkCudaErrors(cudaFree(dValues));
    checkCudaErrors(cudaFree(dOut));
    return finish("segmented_scan", ok);
}
