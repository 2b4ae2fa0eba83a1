// CUB's device-wide algorithms beyond sort and sum, each with its two-phase temporary-storage
// query: DeviceSegmentedReduce (Sum, Max, ArgMin over CSR-style offsets), DeviceHistogram
// (HistogramEven, HistogramRange), DeviceSelect (If with a functor, Flagged, Unique),
// DeviceRunLengthEncode::Encode, DevicePartition::If, DeviceRadixSort::SortPairs over a bit
// range and SortKeysDescending, DeviceSegmentedSort::SortKeys and DeviceScan with a custom
// operator, on a sensor-readings workload, every result compared with the host.
#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define CUDA_CHECK(expr)                                                                   \
    do {                                                                                   \
        cudaError_t e_ = (expr);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #expr,                 \
                    cudaGetErrorString(e_));                                               \
            std::exit(2);                                                                  \
        }                                                                                  \
    } while (0)

// A device buffer that frees itself; copies to and from std::vector.
template <typename T>
struct DeviceBuffer {
    T *ptr = nullptr;
    size_t count = 0;
    explicit DeviceBuffer(size_t n) : count(n) { CUDA_CHECK(cudaMalloc(&ptr, (n ? n : 1) * sizeof(T))); }
    explicit DeviceBuffer(const std::vector<T> &v) : DeviceBuffer(v.size()) {
        CUDA_CHECK(cudaMemcpy(ptr, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer &) = delete;
    std::vector<T> get(size_t n = SIZE_MAX) const {
        std::vector<T> v(std::min(n, count));
        CUDA_CHECK(cudaMemcpy(v.data(), ptr, v.size() * sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
};

// Runs a CUB call twice: once to size its temporary storage, once to do the work.
template <typename Call>
static void cubRun(Call call) {
    size_t bytes = 0;
    CUDA_CHECK(call(nullptr, bytes));
    void *temp = nullptr;
    CUDA_CHECK(cudaMalloc(&temp, bytes ? bytes : 1));
    CUDA_CHECK(call(temp, bytes));
    CUDA_CHECK(cudaFree(temp));
}

struct IsAlarm {
    int limit;
    __host__ __device__ bool operator()(int v) const { return v > limit; }
};

struct MaxAbs {
    __host__ __device__ int operator()(int a, int b) const {
        return max(a < 0 ? -a : a, b < 0 ? -b : b);
    }
};

static int failures = 0;
template <typename T>
static void expect(const char *what, const std::vector<T> &d, const std::vector<T> &h) {
    bool same = d == h;
    printf("%-30s %s (%zu values)\n", what, same ? "ok" : "MISMATCH", h.size());
    failures += !same;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    // Readings of sensors, grouped in segments of varying length (some empty).
    std::vector<int> readings(n), offsets{0};
    unsigned s = 77;
    auto next = [&s] { return s = s * 1664525u + 1013904223u; };
    for (int i = 0; i < n; ++i) readings[i] = int((next() >> 9) % 20001) - 10000;
    while (offsets.back() < n) {
        int len = (next() >> 10) % 700;
        if ((next() >> 12) % 11 == 0) len = 0;
        offsets.push_back(std::min(n, offsets.back() + len));
    }
    const int segments = int(offsets.size()) - 1;
    DeviceBuffer<int> dIn(readings), dOff(offsets);

    // Segmented reductions.
    {
        DeviceBuffer<long long> dSum(segments);
        DeviceBuffer<int> dMax(segments);
        DeviceBuffer<cub::KeyValuePair<int, int>> dArg(segments);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSegmentedReduce::Sum(t, b, dIn.ptr, dSum.ptr, segments, dOff.ptr,
                                                   dOff.ptr + 1);
        });
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSegmentedReduce::Max(t, b, dIn.ptr, dMax.ptr, segments, dOff.ptr,
                                                   dOff.ptr + 1);
        });
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSegmentedReduce::ArgMin(t, b, dIn.ptr, dArg.ptr, segments, dOff.ptr,
                                                      dOff.ptr + 1);
        });
        std::vector<long long> hSum(segments);
        std::vector<int> hMax(segments), hArg(segments), dArgIdx(segments);
        for (int g = 0; g < segments; ++g) {
            int b = offsets[g], e = offsets[g + 1];
            hSum[g] = std::accumulate(readings.begin() + b, readings.begin() + e, 0ll);
            hMax[g] = b == e ? INT_MIN : *std::max_element(readings.begin() + b, readings.begin() + e);
            hArg[g] = b == e ? 1 : int(std::min_element(readings.begin() + b, readings.begin() + e) -
                                       (readings.begin() + b));
        }
        auto arg = dArg.get();
        for (int g = 0; g < segments; ++g) dArgIdx[g] = arg[g].key;
        expect("DeviceSegmentedReduce::Sum", dSum.get(), hSum);
        expect("DeviceSegmentedReduce::Max", dMax.get(), hMax);
        expect("DeviceSegmentedReduce::ArgMin", dArgIdx, hArg);
    }
    // Histograms: 64 even bins over [-10000, 10000), and uneven bins by their boundaries.
    {
        const int bins = 64;
        DeviceBuffer<int> dHist(bins);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramEven(t, b, dIn.ptr, dHist.ptr, bins + 1, -10000,
                                                       10000, n);
        });
        std::vector<int> hHist(bins, 0);
        for (int v : readings)
            if (v >= -10000 && v < 10000) hHist[(long long)(v + 10000) * bins / 20000]++;
        expect("DeviceHistogram::HistogramEven", dHist.get(), hHist);
        std::vector<int> levels{-10000, -5000, -1000, -100, 0, 100, 1000, 5000, 10001};
        DeviceBuffer<int> dLevels(levels), dRange(levels.size() - 1);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceHistogram::HistogramRange(t, b, dIn.ptr, dRange.ptr,
                                                        int(levels.size()), dLevels.ptr, n);
        });
        std::vector<int> hRange(levels.size() - 1, 0);
        for (int v : readings)
            for (size_t k = 0; k + 1 < levels.size(); ++k)
                if (v >= levels[k] && v < levels[k + 1]) hRange[k]++;
        expect("DeviceHistogram::HistogramRange", dRange.get(), hRange);
    }
    // Selection, partition and run-length encoding of quantised readings.
    {
        DeviceBuffer<int> dOut(n), dCount(1);
        IsAlarm alarm{9000};
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSelect::If(t, b, dIn.ptr, dOut.ptr, dCount.ptr, n, alarm);
        });
        std::vector<int> hAlarms;
        std::copy_if(readings.begin(), readings.end(), std::back_inserter(hAlarms), alarm);
        expect("DeviceSelect::If", dOut.get(dCount.get()[0]), hAlarms);

        std::vector<char> flags(n);
        for (int i = 0; i < n; ++i) flags[i] = (readings[i] & 7) == 3;
        DeviceBuffer<char> dFlags(flags);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSelect::Flagged(t, b, dIn.ptr, dFlags.ptr, dOut.ptr, dCount.ptr, n);
        });
        std::vector<int> hFlagged;
        for (int i = 0; i < n; ++i)
            if (flags[i]) hFlagged.push_back(readings[i]);
        expect("DeviceSelect::Flagged", dOut.get(dCount.get()[0]), hFlagged);

        cubRun([&](void *t, size_t &b) {
            return cub::DevicePartition::If(t, b, dIn.ptr, dOut.ptr, dCount.ptr, n, alarm);
        });
        std::vector<int> hPart = hAlarms;
        for (int i = n - 1; i >= 0; --i)
            if (!alarm(readings[i])) hPart.push_back(readings[i]);
        expect("DevicePartition::If", dOut.get(), hPart);

        std::vector<int> quant(n);
        for (int i = 0; i < n; ++i) quant[i] = (readings[i] / 2000) + ((i / 97) % 3);
        DeviceBuffer<int> dQuant(quant), dUnique(n), dRuns(n), dNumRuns(1);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSelect::Unique(t, b, dQuant.ptr, dUnique.ptr, dCount.ptr, n);
        });
        std::vector<int> hUnique(quant);
        hUnique.erase(std::unique(hUnique.begin(), hUnique.end()), hUnique.end());
        expect("DeviceSelect::Unique", dUnique.get(dCount.get()[0]), hUnique);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceRunLengthEncode::Encode(t, b, dQuant.ptr, dUnique.ptr, dRuns.ptr,
                                                      dNumRuns.ptr, n);
        });
        std::vector<int> hRuns;
        for (int i = 0; i < n; ++i) {
            if (i == 0 || quant[i] != quant[i - 1]) hRuns.push_back(0);
            hRuns.back()++;
        }
        int runs = dNumRuns.get()[0];
        expect("DeviceRunLengthEncode::Encode", dRuns.get(runs), hRuns);
    }
    // Sorting: pairs on bits [4, 20) of unsigned keys (stable), keys descending, and segmented.
    {
        std::vector<unsigned> keys(n);
        std::vector<int> vals(n);
        for (int i = 0; i < n; ++i) keys[i] = next(), vals[i] = i;
        DeviceBuffer<unsigned> dK(keys), dKOut(n);
        DeviceBuffer<int> dV(vals), dVOut(n);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceRadixSort::SortPairs(t, b, dK.ptr, dKOut.ptr, dV.ptr, dVOut.ptr, n,
                                                   4, 20);
        });
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        auto field = [&](int i) { return (keys[i] >> 4) & 0xffff; };
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return field(a) < field(b); });
        expect("DeviceRadixSort::SortPairs bits", dVOut.get(), order);

        cubRun([&](void *t, size_t &b) {
            return cub::DeviceRadixSort::SortKeysDescending(t, b, dK.ptr, dKOut.ptr, n);
        });
        std::vector<unsigned> hDesc(keys);
        std::sort(hDesc.begin(), hDesc.end(), std::greater<unsigned>());
        expect("DeviceRadixSort::SortKeysDesc", dKOut.get(), hDesc);

        DeviceBuffer<int> dR(readings), dROut(n);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceSegmentedSort::SortKeys(t, b, dR.ptr, dROut.ptr, n, segments,
                                                      dOff.ptr, dOff.ptr + 1);
        });
        std::vector<int> hSeg(readings);
        for (int g = 0; g < segments; ++g)
            std::sort(hSeg.begin() + offsets[g], hSeg.begin() + offsets[g + 1]);
        expect("DeviceSegmentedSort::SortKeys", dROut.get(), hSeg);
    }
    // A running maximum of magnitudes (inclusive scan with a custom operator).
    {
        DeviceBuffer<int> dScan(n);
        cubRun([&](void *t, size_t &b) {
            return cub::DeviceScan::InclusiveScan(t, b, dIn.ptr, dScan.ptr, MaxAbs(), n);
        });
        std::vector<int> hScan(n);
        int run = 0;
        for (int i = 0; i < n; ++i) hScan[i] = run = i ? MaxAbs()(run, readings[i]) : readings[i];
        expect("DeviceScan::InclusiveScan op", dScan.get(), hScan);
    }
    printf("readings %d, segments %d\n", n, segments);
    printf("cub_segmented: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
