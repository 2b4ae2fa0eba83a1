// Dynamic parallelism, streams: a parent grid whose threads launch many children into the
// fire-and-forget stream and the NULL stream (two launches in order each), eight children in
// order into a stream created in device code, and a tail launch (cudaStreamTailLaunch) that
// must see every other child done; then device-side errors (an invalid configuration through
// cudaGetLastError/cudaPeekAtLastError). Checked against the host; prints
// `dynpar_streams: ok` last. `dynpar_streams pending` instead lowers
// cudaLimitDevRuntimePendingLaunchCount to 64 and launches 100 children from one thread (the
// CPU device refuses the 65th on with cudaErrorLaunchPendingCountExceeded; a GPU may queue
// more in its virtualized pool, so that mode is not compared).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "perf_common.h"

constexpr int CHILDREN = 256;
constexpr int IN_ORDER = 8;

__global__ void mark(int *slots, int i, int value) {
    if (threadIdx.x == 0) slots[i] = value;
}

// Launched after mark(slots, i, …) into the same NULL stream: must see its write.
__global__ void after_mark(const int *slots, int i, int *seen) {
    if (threadIdx.x == 0) seen[i] = slots[i] == i + 1;
}

// Step k of a sequence in one stream: runs only after step k-1.
__global__ void step(int *sequence, int k, int *out_of_order) {
    if (atomicCAS(sequence, k, k + 1) != k) atomicAdd(out_of_order, 1);
}

// The tail launch: every other child of the parent grid has finished.
__global__ void tail_check(const int *slots, const int *seen, const int *sequence, int *result) {
    int marked = 0, ordered = 0;
    for (int i = 0; i < CHILDREN; ++i) {
        marked += slots[i] == i + 1;
        ordered += (i % 2 == 0) || seen[i];
    }
    result[0] = marked;
    result[1] = ordered;
    result[2] = *sequence;
    printf("tail launch: %d of %d children done, %d of %d in NULL-stream order, sequence at %d\n",
           marked, CHILDREN, ordered, CHILDREN, *sequence);
}

__global__ void parent(int *slots, int *seen, int *sequence, int *out_of_order, int *result,
                       int *errors) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < CHILDREN) {
        if (i % 2 == 0) {
            mark<<<1, 32, 0, cudaStreamFireAndForget>>>(slots, i, i + 1);
        } else {
            mark<<<1, 32>>>(slots, i, i + 1);
            after_mark<<<1, 32>>>(slots, i, seen);
        }
        if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
    }
    if (i == 0) {
        cudaStream_t s;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) atomicAdd(errors, 1);
        for (int k = 0; k < IN_ORDER; ++k) step<<<1, 1, 0, s>>>(sequence, k, out_of_order);
        cudaStreamDestroy(s);
        tail_check<<<1, 1, 0, cudaStreamTailLaunch>>>(slots, seen, sequence, result);
        if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
    }
}

// Device-side errors: a block of 2048 threads is refused; the error stays until read.
__global__ void bad_launch(int *codes) {
    mark<<<1, 2048>>>(codes, 0, 1);
    codes[1] = cudaPeekAtLastError();
    codes[2] = cudaGetLastError();
    codes[3] = cudaGetLastError();
}

__global__ void flood(int *slots, int count, int *codes) {
    for (int i = 0; i < count; ++i) {
        mark<<<1, 1, 0, cudaStreamFireAndForget>>>(slots, i, 1);
        codes[i] = cudaGetLastError();
    }
}

static int pending_mode() {
    const int count = 100, limit = 64;
    CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    size_t read_back = 0;
    CHECK(cudaDeviceGetLimit(&read_back, cudaLimitDevRuntimePendingLaunchCount));
    int *d_slots, *d_codes;
    CHECK(cudaMalloc(&d_slots, count * sizeof(int)));
    CHECK(cudaMalloc(&d_codes, count * sizeof(int)));
    CHECK(cudaMemset(d_slots, 0, count * sizeof(int)));
    flood<<<1, 1>>>(d_slots, count, d_codes);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int slots[count], codes[count];
    CHECK(cudaMemcpy(slots, d_slots, sizeof slots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(codes, d_codes, sizeof codes, cudaMemcpyDeviceToHost));
    int launched = 0, refused = 0, ran = 0;
    for (int i = 0; i < count; ++i) {
        launched += codes[i] == cudaSuccess;
        refused += codes[i] == cudaErrorLaunchPendingCountExceeded;
        ran += slots[i];
    }
    printf("pending limit %zu: %d launched, %d ran, %d refused (cudaErrorLaunchPendingCountExceeded)\n",
           read_back, launched, ran, refused);
    bool ok = read_back == limit && launched == limit && ran == limit && refused == count - limit;
    return finish("dynpar_streams pending", ok);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "pending") == 0) return pending_mode();
    int *d_slots, *d_seen, *d_sequence, *d_out_of_order, *d_result, *d_errors;
    CHECK(cudaMalloc(&d_slots, CHILDREN * sizeof(int)));
    CHECK(cudaMalloc(&d_seen, CHILDREN * sizeof(int)));
    CHECK(cudaMalloc(&d_sequence, sizeof(int)));
    CHECK(cudaMalloc(&d_out_of_order, sizeof(int)));
    CHECK(cudaMalloc(&d_result, 3 * sizeof(int)));
    CHECK(cudaMalloc(&d_errors, sizeof(int)));
    CHECK(cudaMemset(d_slots, 0, CHILDREN * sizeof(int)));
    CHECK(cudaMemset(d_seen, 0, CHILDREN * sizeof(int)));
    CHECK(cudaMemset(d_sequence, 0, sizeof(int)));
    CHECK(cudaMemset(d_out_of_order, 0, sizeof(int)));
    CHECK(cudaMemset(d_result, 0, 3 * sizeof(int)));
    CHECK(cudaMemset(d_errors, 0, sizeof(int)));
    parent<<<CHILDREN / 64, 64>>>(d_slots, d_seen, d_sequence, d_out_of_order, d_result, d_errors);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int slots[CHILDREN], seen[CHILDREN], result[3], sequence, out_of_order, errors;
    CHECK(cudaMemcpy(slots, d_slots, sizeof slots, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(seen, d_seen, sizeof seen, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(result, d_result, sizeof result, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sequence, d_sequence, sizeof sequence, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&out_of_order, d_out_of_order, sizeof out_of_order, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
    int marked = 0, ordered = 0;
    for (int i = 0; i < CHILDREN; ++i) {
        marked += slots[i] == i + 1;
        ordered += (i % 2 == 0) || seen[i];
    }
    bool ok = marked == CHILDREN && ordered == CHILDREN && sequence == IN_ORDER &&
              out_of_order == 0 && errors == 0 && result[0] == CHILDREN &&
              result[1] == CHILDREN && result[2] == IN_ORDER;
    printf("children: %d of %d marked, %d in NULL-stream order, stream sequence %d of %d (%d out of order), %d launch errors\n",
           marked, CHILDREN, ordered, sequence, IN_ORDER, out_of_order, errors);

    int *d_codes;
    CHECK(cudaMalloc(&d_codes, 4 * sizeof(int)));
    CHECK(cudaMemset(d_codes, 0, 4 * sizeof(int)));
    bad_launch<<<1, 1>>>(d_codes);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int codes[4];
    CHECK(cudaMemcpy(codes, d_codes, sizeof codes, cudaMemcpyDeviceToHost));
    printf("invalid child launch: peek %s, get %s, then %s; child ran: %s\n",
           cudaGetErrorName(cudaError_t(codes[1])), cudaGetErrorName(cudaError_t(codes[2])),
           cudaGetErrorName(cudaError_t(codes[3])), codes[0] ? "yes" : "no");
    ok = ok && codes[0] == 0 && codes[1] == cudaErrorInvalidConfiguration &&
         codes[2] == cudaErrorInvalidConfiguration && codes[3] == cudaSuccess;
    return finish("dynpar_streams", ok);
}
