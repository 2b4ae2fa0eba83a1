// Streams at scale, host functions in stream order, and bounded queues: 100,000 live streams
// each running a kernel; a host function that waits for what the program does after
// cudaLaunchHostFunc returns; callbacks with the stream's status; and resident memory bounded
// while 300,000 launches and 200,000 graph replays are submitted behind a stalled stream
// without synchronizing. Checks its own results and prints a final summary line.
#include <atomic>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorName(err_));                                          \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int failures = 0;
static void expect(bool ok, const char *what) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

__global__ void store_index(int *out, int i) { out[i] = i + 1; }
__global__ void spin(volatile int *flag) {
    while (*flag == 0) {
    }
}
__global__ void bump(int *counter) { *counter += 1; }

// Resident memory of this process, in KiB.
static long rss_kib() {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
    if (status) fclose(status);
    return kib;
}

static void many_streams(int count) {
    int *out;
    CHECK(cudaMalloc(&out, count * sizeof(int)));
    CHECK(cudaMemset(out, 0, count * sizeof(int)));
    std::vector<cudaStream_t> streams(count);
    for (int i = 0; i < count; i++) {
        cudaError_t err = cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking);
        if (err != cudaSuccess) {
            printf("FAIL stream %d of %d: %s\n", i, count, cudaGetErrorName(err));
            exit(1);
        }
    }
    for (int i = 0; i < count; i++) store_index<<<1, 1, 0, streams[i]>>>(out, i);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<int> host(count);
    CHECK(cudaMemcpy(host.data(), out, count * sizeof(int), cudaMemcpyDeviceToHost));
    bool all = true;
    for (int i = 0; i < count; i++) all = all && host[i] == i + 1;
    expect(all, "a kernel on each of 100,000 live streams");
    for (int i = 0; i < count; i++) CHECK(cudaStreamDestroy(streams[i]));
    CHECK(cudaFree(out));
}

struct Order {
    std::atomic<int> go{0};
    std::atomic<int> next{0};
    int first = -1, second = -1, status = -1;
};

static void CUDART_CB wait_for_go(void *user) {
    Order *order = static_cast<Order *>(user);
    while (order->go.load() == 0) {
    }
    order->first = order->next++;
}
static void CUDART_CB after(void *user) {
    Order *order = static_cast<Order *>(user);
    order->second = order->next++;
}
static void CUDART_CB record_status(cudaStream_t, cudaError_t status, void *user) {
    static_cast<Order *>(user)->status = status;
}

static void host_functions() {
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    int *counter;
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMemset(counter, 0, sizeof(int)));
    Order order;
    bump<<<1, 1, 0, stream>>>(counter);
    // The host function waits for the statement after this call: CUDA enqueues it and returns.
    CHECK(cudaLaunchHostFunc(stream, wait_for_go, &order));
    bump<<<1, 1, 0, stream>>>(counter);
    CHECK(cudaStreamAddCallback(stream, record_status, &order, 0));
    CHECK(cudaLaunchHostFunc(stream, after, &order));
    expect(cudaStreamQuery(stream) == cudaErrorNotReady, "a waiting host function holds its stream");
    order.go = 1;
    CHECK(cudaStreamSynchronize(stream));
    expect(order.first == 0 && order.second == 1, "host functions in stream order");
    expect(order.status == cudaSuccess, "a callback gets the stream's status");
    int value = 0;
    CHECK(cudaMemcpy(&value, counter, sizeof value, cudaMemcpyDeviceToHost));
    expect(value == 2, "kernels around host functions");
    expect(cudaStreamAddCallback(stream, record_status, &order, 1) == cudaErrorInvalidValue,
           "callback flags must be 0");
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(counter));
}

// Submits `count` pieces of work (launches, or replays of a one-launch graph) behind a kernel
// that spins until released; returns the growth of resident memory in KiB meanwhile.
static long growth_behind_a_stall(int count, bool graphs) {
    cudaStream_t stream, releaser;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&releaser, cudaStreamNonBlocking));
    int *flag, *counter;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    CHECK(cudaMemset(counter, 0, sizeof(int)));
    cudaGraphExec_t exec = nullptr;
    if (graphs) {
        cudaGraph_t graph;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        bump<<<1, 1, 0, stream>>>(counter);
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphDestroy(graph));
    }
    spin<<<1, 1, 0, stream>>>(flag);
    // Released from another thread once a thousand submissions are queued: the submitting
    // thread blocks on the full queue until the kernel ends.
    std::atomic<int> submitted{0};
    std::thread release([&] {
        while (submitted.load() < 1000) {
        }
        static const int one = 1;
        CHECK(cudaMemcpyAsync(flag, &one, sizeof one, cudaMemcpyHostToDevice, releaser));
    });
    long before = rss_kib(), peak = before;
    for (int i = 0; i < count; i++) {
        if (graphs)
            CHECK(cudaGraphLaunch(exec, stream));
        else
            bump<<<1, 1, 0, stream>>>(counter);
        submitted.store(i + 1);
        if (i % 4096 == 0) {
            long now = rss_kib();
            if (now > peak) peak = now;
        }
    }
    long end = rss_kib();
    if (end > peak) peak = end;
    release.join();
    CHECK(cudaStreamSynchronize(stream));
    int value = 0;
    CHECK(cudaMemcpy(&value, counter, sizeof value, cudaMemcpyDeviceToHost));
    expect(value == count, graphs ? "every graph replay ran" : "every launch ran");
    if (exec) CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaStreamDestroy(releaser));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(counter));
    return peak - before;
}

int main(int argc, char **argv) {
    int streams = argc > 1 ? atoi(argv[1]) : 100000;
    many_streams(streams);
    host_functions();
    // Bounded queues: without them, each queued launch holds ~100 bytes, each replay ~140.
    long launches = growth_behind_a_stall(300000, false);
    long replays = growth_behind_a_stall(200000, true);
    printf("resident growth: %ld KiB over 300000 launches, %ld KiB over 200000 replays\n",
           launches, replays);
    expect(launches < 8192, "launches without synchronizing hold bounded memory");
    expect(replays < 8192, "graph replays without synchronizing hold bounded memory");
    if (failures) {
        printf("streams: %d failure(s)\n", failures);
        return 1;
    }
    printf("streams: %d streams, ok\n", streams);
    return 0;
}
