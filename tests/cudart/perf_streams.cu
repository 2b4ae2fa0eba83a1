// Many small kernels on streams: 8 streams, each running 2,000 launches of a 4,096-element
// update (x = fma(x, 1.0001, stream)), the shape of stream-overlap and launch-rate benchmarks,
// with an event recorded on every stream and waited on by the next one every 100 launches.
// Checked against the same updates on the host. Usage: perf_streams [launches per stream]
#include <cmath>
#include <vector>
#include "perf_common.h"

constexpr int kStreams = 8, kElements = 4096;

__global__ void update(float *x, float scale, float shift, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __fmaf_rn(x[i], scale, shift);
}

int main(int argc, char **argv) {
    int launches = (int)argOr(argc, argv, 1, 2000);
    cudaStream_t streams[kStreams];
    cudaEvent_t events[kStreams];
    float *data[kStreams];
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&events[s], cudaEventDisableTiming));
        CHECK(cudaMalloc(&data[s], kElements * sizeof(float)));
        CHECK(cudaMemsetAsync(data[s], 0, kElements * sizeof(float), streams[s]));
    }
    const float scale = 1.0001f;
    for (int k = 0; k < launches; ++k) {
        for (int s = 0; s < kStreams; ++s) {
            update<<<kElements / 256, 256, 0, streams[s]>>>(data[s], scale, (float)s, kElements);
            CHECK_LAUNCH();
            if (k % 100 == 99) {
                CHECK(cudaEventRecord(events[s], streams[s]));
                CHECK(cudaStreamWaitEvent(streams[(s + 1) % kStreams], events[s], 0));
            }
        }
    }
    bool ok = true;
    double sum = 0;
    for (int s = 0; s < kStreams; ++s) {
        std::vector<float> result(kElements);
        CHECK(cudaMemcpyAsync(result.data(), data[s], kElements * sizeof(float),
                              cudaMemcpyDeviceToHost, streams[s]));
        CHECK(cudaStreamSynchronize(streams[s]));
        float expected = 0;
        for (int k = 0; k < launches; ++k) expected = fmaf(expected, scale, (float)s);
        for (float value : result) ok &= value == expected;
        sum += result[0];
    }
    printf("%d streams x %d launches: first elements sum %.3f\n", kStreams, launches, sum);
    return finish("perf_streams", ok);
}
