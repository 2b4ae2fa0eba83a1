// Thrust the way application code uses it: __device__ lambdas (nvcc --extended-lambda) and
// functors in transform, transform_reduce, count_if and copy_if; fancy iterators (counting,
// transform, zip, permutation); sort_by_key, reduce_by_key, inclusive_scan_by_key, unique,
// lower_bound and gather. A sales-records workload (store id, item, quantity, price in cents)
// summarised per store, every figure checked against std:: algorithms on the host.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <vector>

// Revenue of one record in cents: quantity times price, less a 10% discount on bulk orders.
struct Revenue {
    __host__ __device__ long long operator()(const thrust::tuple<int, int> &qp) const {
        long long gross = (long long)thrust::get<0>(qp) * thrust::get<1>(qp);
        return thrust::get<0>(qp) >= 10 ? gross - gross / 10 : gross;
    }
};

template <typename T>
struct Square {
    __host__ __device__ T operator()(T x) const { return x * x; }
};

static int failures = 0;
template <typename T>
static void expect(const char *what, const T &device, const T &host) {
    bool same = device == host;
    printf("%-28s %s\n", what, same ? "ok" : "MISMATCH");
    failures += !same;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    const int stores = 97;
    thrust::host_vector<int> hStore(n), hItem(n), hQty(n), hPrice(n);
    unsigned s = 2024;
    auto next = [&s] { return s = s * 1664525u + 1013904223u; };
    for (int i = 0; i < n; ++i) {
        hStore[i] = (next() >> 8) % stores;
        hItem[i] = (next() >> 8) % 5000;
        hQty[i] = 1 + (next() >> 8) % 20;
        hPrice[i] = 50 + (next() >> 8) % 10000;
    }
    thrust::device_vector<int> store = hStore, item = hItem, qty = hQty, price = hPrice;

    // Revenue per record through a zip iterator and a functor.
    thrust::device_vector<long long> revenue(n);
    auto qp = thrust::make_zip_iterator(thrust::make_tuple(qty.begin(), price.begin()));
    thrust::transform(qp, qp + n, revenue.begin(), Revenue());
    std::vector<long long> hRevenue(n);
    for (int i = 0; i < n; ++i) hRevenue[i] = Revenue()(thrust::make_tuple(hQty[i], hPrice[i]));

    // Total revenue and the sum of squared quantities (transform_reduce, functor and lambda).
    long long total = thrust::reduce(revenue.begin(), revenue.end(), 0ll);
    long long hTotal = std::accumulate(hRevenue.begin(), hRevenue.end(), 0ll);
    expect("total revenue", total, hTotal);
    long long sq = thrust::transform_reduce(qty.begin(), qty.end(), Square<long long>(), 0ll,
                                            thrust::plus<long long>());
    long long hSq = 0;
    for (int q : hQty) hSq += (long long)q * q;
    expect("sum of squared quantities", sq, hSq);
    const int threshold = 15;
    long long bulkUnits = thrust::transform_reduce(
        qty.begin(), qty.end(),
        [threshold] __device__(int q) -> long long { return q >= threshold ? (long long)q : 0ll; }, 0ll,
        thrust::plus<long long>());
    long long hBulk = 0;
    for (int q : hQty) hBulk += q >= threshold ? q : 0;
    expect("units in bulk orders", bulkUnits, hBulk);

    // count_if and copy_if with lambdas: the indices of expensive records.
    int expensive = thrust::count_if(price.begin(), price.end(),
                                     [] __device__(int p) -> bool { return p > 9000; });
    thrust::device_vector<int> picked(expensive);
    thrust::copy_if(thrust::make_counting_iterator(0), thrust::make_counting_iterator(n),
                    price.begin(), picked.begin(), [] __device__(int p) -> bool { return p > 9000; });
    std::vector<int> hPicked;
    for (int i = 0; i < n; ++i)
        if (hPrice[i] > 9000) hPicked.push_back(i);
    std::vector<int> dPicked(expensive);
    thrust::copy(picked.begin(), picked.end(), dPicked.begin());
    expect("expensive record indices", dPicked, hPicked);

    // Revenue per store: sort_by_key, then reduce_by_key.
    thrust::device_vector<int> keys = store;
    thrust::device_vector<long long> values = revenue;
    thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
    thrust::device_vector<int> outKeys(stores);
    thrust::device_vector<long long> outSums(stores);
    auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), values.begin(), outKeys.begin(),
                                      outSums.begin());
    int groups = int(ends.first - outKeys.begin());
    std::map<int, long long> hPerStore;
    for (int i = 0; i < n; ++i) hPerStore[hStore[i]] += hRevenue[i];
    std::vector<long long> hSums, dSums(groups);
    for (auto &kv : hPerStore) hSums.push_back(kv.second);
    thrust::copy(outSums.begin(), outSums.begin() + groups, dSums.begin());
    expect("revenue per store", dSums, hSums);

    // Running revenue within each store (inclusive_scan_by_key over the sorted keys).
    thrust::device_vector<long long> running(n);
    thrust::inclusive_scan_by_key(keys.begin(), keys.end(), values.begin(), running.begin());
    std::vector<long long> lastOfStore(groups);
    thrust::host_vector<int> hKeys = keys;
    thrust::host_vector<long long> hRunning = running;
    for (int i = 0; i < n; ++i)
        if (i + 1 == n || hKeys[i + 1] != hKeys[i]) lastOfStore[std::distance(
            hPerStore.begin(), hPerStore.find(hKeys[i]))] = hRunning[i];
    expect("running revenue ends", lastOfStore, hSums);

    // Distinct items (sort + unique), then where each record's item lands (lower_bound).
    thrust::device_vector<int> distinct = item;
    thrust::sort(distinct.begin(), distinct.end());
    int unique = int(thrust::unique(distinct.begin(), distinct.end()) - distinct.begin());
    distinct.resize(unique);
    thrust::device_vector<int> slot(n);
    thrust::lower_bound(distinct.begin(), distinct.end(), item.begin(), item.end(), slot.begin());
    std::vector<int> hDistinct(hItem.begin(), hItem.end());
    std::sort(hDistinct.begin(), hDistinct.end());
    hDistinct.erase(std::unique(hDistinct.begin(), hDistinct.end()), hDistinct.end());
    thrust::host_vector<int> hSlot = slot;
    bool slotsOk = int(hDistinct.size()) == unique;
    for (int i = 0; i < n && slotsOk; ++i) slotsOk = hDistinct[hSlot[i]] == hItem[i];
    expect("distinct items and slots", slotsOk, true);

    // Prices of every 7th record through a permutation iterator over a transform iterator.
    int strided = (n + 6) / 7;
    auto every7 = thrust::make_transform_iterator(thrust::make_counting_iterator(0),
                                                  [] __host__ __device__(int i) { return 7 * i; });
    long long strideSum = thrust::reduce(thrust::make_permutation_iterator(price.begin(), every7),
                                         thrust::make_permutation_iterator(price.begin(), every7) +
                                             strided,
                                         0ll);
    long long hStride = 0;
    for (int i = 0; i < n; i += 7) hStride += hPrice[i];
    expect("every 7th price", strideSum, hStride);

    // The best store, gathered by index.
    thrust::device_vector<int> order(groups);
    thrust::sequence(order.begin(), order.end());
    thrust::sort_by_key(outSums.begin(), outSums.begin() + groups, order.begin(),
                        thrust::greater<long long>());
    thrust::device_vector<int> top(3);
    thrust::gather(order.begin(), order.begin() + 3, outKeys.begin(), top.begin());
    std::vector<std::pair<long long, int>> ranked;
    for (auto &kv : hPerStore) ranked.push_back({-kv.second, kv.first});
    std::sort(ranked.begin(), ranked.end());
    std::vector<int> hTop = {ranked[0].second, ranked[1].second, ranked[2].second};
    std::vector<int> dTop(3);
    thrust::copy(top.begin(), top.end(), dTop.begin());
    expect("top three stores", dTop, hTop);

    printf("records %d, stores %d, distinct items %d, expensive %d\n", n, groups, unique,
           expensive);
    printf("total revenue %lld cents, top store %d\n", hTotal, hTop[0]);
    printf("thrust_lambda: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
