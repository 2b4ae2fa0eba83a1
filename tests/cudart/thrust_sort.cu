// A library the project did not write: Thrust's sequence, sort (CUB radix sort underneath)
// and reduce on device vectors. Built by scripts/gpu/cudart.sh --prepare (Thrust takes a
// minute to compile, too long for CI); prints the results and a final line.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

int main() {
    thrust::device_vector<int> values(100000);
    thrust::sequence(values.begin(), values.end());
    thrust::sort(values.begin(), values.end(), thrust::greater<int>());
    long long sum = thrust::reduce(values.begin(), values.end(), 0LL);
    int first = values[0], last = values[values.size() - 1];
    printf("sum %lld, first %d, last %d\n", sum, first, last);
    bool ok = sum == 4999950000LL && first == 99999 && last == 0;
    printf("thrust_sort: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
