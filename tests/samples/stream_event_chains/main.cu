// Thousands of tiny kernels over eight non-blocking streams tied by event chains, as
// pipeline-parallel codes issue them: in every round each stream waits (cudaStreamWaitEvent) on
// the event the previous stream recorded after its two kernels of that round, folds that
// stream's values into its own, mixes them, and records its own event. 8 streams x 600 rounds x 2
// kernels plus the final fan-in (stream 0 waits on every stream's last event, then a checksum
// kernel): 9,601 launches and 4,800 events recorded. The host replays the same recurrence; every
// round of every stream is compared. The first argument: the round count.
#include <vector>
#include "../common/helpers.h"
#include "chain_kernels.cuh"

int main(int argc, char **argv) {
    const int streams = 8;
    int rounds = sizeArg(argc, argv, 600);
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "stream_event_chains: round count %d outside 1..100000\n", rounds);
        return EXIT_FAILURE;
    }
    checkCudaErrors(cudaSetDevice(0));
    size_t perStream = (size_t)(rounds + 1) * WIDTH;  // slot 0: the initial values
    unsigned *values;
    checkCudaErrors(cudaMalloc(&values, streams * perStream * sizeof(unsigned)));
    std::vector<unsigned> initial(streams * perStream, 0);
    for (int s = 0; s < streams; ++s)
        for (int i = 0; i < WIDTH; ++i) initial[s * perStream + i] = s * 1000u + i;
    checkCudaErrors(cudaMemcpy(values, initial.data(), initial.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
    auto slot = [&](int s, int r) { return values + s * perStream + (size_t)r * WIDTH; };

    std::vector<cudaStream_t> stream(streams);
    std::vector<cudaEvent_t> done(streams);  // each stream's event, re-recorded every round
    for (int s = 0; s < streams; ++s) {
        checkCudaErrors(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking));
        checkCudaErrors(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }
    for (int r = 1; r <= rounds; ++r)
        for (int s = 0; s < streams; ++s) {
            // The wait takes the event's latest record: stream s-1's kernels of this round.
            if (s > 0) checkCudaErrors(cudaStreamWaitEvent(stream[s], done[s - 1], 0));
            foldStep<<<1, WIDTH, 0, stream[s]>>>(slot(s, r), slot(s, r - 1), s > 0 ? slot(s - 1, r) : nullptr, r);
            checkCudaErrors(cudaGetLastError());
            mixStep<<<1, WIDTH, 0, stream[s]>>>(slot(s, r), r * 131u + s);
            checkCudaErrors(cudaGetLastError());
            checkCudaErrors(cudaEventRecord(done[s], stream[s]));
        }
    // Fan-in: the checksum on stream 0 after every stream's last kernel.
    std::vector<const unsigned *> lasts(streams);
    for (int s = 0; s < streams; ++s) {
        lasts[s] = slot(s, rounds);
        checkCudaErrors(cudaEventRecord(done[s], stream[s]));
        checkCudaErrors(cudaStreamWaitEvent(stream[0], done[s], 0));
    }
    const unsigned **dLasts;
    unsigned long long *dSum;
    checkCudaErrors(cudaMalloc(&dLasts, streams * sizeof(unsigned *)));
    checkCudaErrors(cudaMalloc(&dSum, sizeof(unsigned long long)));
    checkCudaErrors(cudaMemcpyAsync(dLasts, lasts.data(), streams * sizeof(unsigned *), cudaMemcpyHostToDevice, stream[0]));
    checkCudaErrors(cudaStreamSynchronize(stream[0]));  // lasts outlives the copy
    checksum<<<1, WIDTH, 0, stream[0]>>>(dLasts, streams, dSum);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaStreamSynchronize(stream[0]));
    // Stream 0 waited on every other stream's last event: all are idle now.
    for (int s = 0; s < streams; ++s) checkCudaErrors(cudaStreamQuery(stream[s]));

    // The host's replay of the recurrence.
    std::vector<unsigned> expected(initial);
    for (int r = 1; r <= rounds; ++r)
        for (int s = 0; s < streams; ++s)
            for (int i = 0; i < WIDTH; ++i) {
                unsigned prev = expected[s * perStream + (size_t)(r - 1) * WIDTH + i];
                unsigned neighbour = s > 0 ? expected[(s - 1) * perStream + (size_t)r * WIDTH + i] : r;
                expected[s * perStream + (size_t)r * WIDTH + i] = mix(prev * 3u + neighbour, r * 131u + s + i);
            }
    std::vector<unsigned> got(expected.size());
    checkCudaErrors(cudaMemcpy(got.data(), values, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    size_t errors = 0;
    for (size_t k = 0; k < got.size(); ++k) errors += got[k] != expected[k];
    unsigned long long sum = 0, wantSum = 0;
    checkCudaErrors(cudaMemcpy(&sum, dSum, sizeof(sum), cudaMemcpyDeviceToHost));
    for (int s = 0; s < streams; ++s)
        for (int i = 0; i < WIDTH; ++i) wantSum += expected[s * perStream + (size_t)rounds * WIDTH + i];
    printf("%d streams x %d rounds: %d launches, %zu mismatched values, checksum %llu (%s)\n", streams, rounds,
           streams * rounds * 2 + 1, errors, sum, sum == wantSum ? "matches" : "DIFFERS");

    for (int s = 0; s < streams; ++s) {
        checkCudaErrors(cudaEventDestroy(done[s]));
        checkCudaErrors(cudaStreamDestroy(stream[s]));
    }
    checkCudaErrors(cudaFree(values));
    checkCudaErrors(cudaFree(dLasts));
    checkCudaErrors(cudaFree(dSum));
    return finish("stream_event_chains", errors == 0 && sum == wantSum);
}
