// Events as CUDA defines them: a timing event times the device work between two records (checked
// against the kernel's own %globaltimer measure of a spin of known length), recording never
// waits for the recorded work (cudaEventQuery and cudaEventElapsedTime answer
// cudaErrorNotReady meanwhile), cudaStreamWaitEvent orders a second stream after the first, and
// a host function is queued without waiting. Prints one line per check, then "event_timing: ok".
// Measured figures go to stderr (they vary from run to run).
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("event_timing: %s failed at line %d: %s\n", #call, __LINE__,              \
                   cudaGetErrorName(err_));                                                    \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins for `ns` nanoseconds of the device's global timer; thread 0 writes how long it spun.
__global__ void spin(unsigned long long ns, unsigned long long *spun) {
    unsigned long long start = global_ns(), now = start;
    while (now - start < ns) {
        __nanosleep(1000);
        now = global_ns();
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) *spun = now - start;
}

// Spins, then raises the flag.
__global__ void spin_then_raise(unsigned long long ns, int *flag) {
    unsigned long long start = global_ns();
    while (global_ns() - start < ns) __nanosleep(1000);
    *flag = 1;
}

__global__ void copy_flag(const int *flag, int *seen) { *seen = *flag; }

static double host_ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

static void host_function(void *data) { *static_cast<volatile int *>(data) = 1; }

static bool report(const char *what, bool ok) {
    printf("event_timing: %s: %s\n", what, ok ? "yes" : "NO");
    return ok;
}

int main() {
    const unsigned long long ms = 1000000ull;
    unsigned long long *spun;
    int *flag, *seen;
    CHECK(cudaMalloc(&spun, sizeof *spun));
    CHECK(cudaMalloc(&flag, sizeof *flag));
    CHECK(cudaMalloc(&seen, sizeof *seen));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    bool ok = true;

    // Warm-up: the first launch of a kernel may load or compile its code.
    spin<<<1, 32>>>(ms / 10, spun);
    spin_then_raise<<<1, 1>>>(0, flag);
    copy_flag<<<1, 1>>>(flag, seen);
    CHECK(cudaDeviceSynchronize());

    // 1. The events bracket a 50 ms kernel: never less than the kernel's own measure, and not
    // much more (launch latency only).
    CHECK(cudaEventRecord(start));
    spin<<<2, 32>>>(50 * ms, spun);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float event_ms = 0;
    CHECK(cudaEventElapsedTime(&event_ms, start, stop));
    unsigned long long spun_ns = 0;
    CHECK(cudaMemcpy(&spun_ns, spun, sizeof spun_ns, cudaMemcpyDeviceToHost));
    double kernel_ms = spun_ns / 1e6;
    fprintf(stderr, "event_timing: events %.3f ms, kernel's own clock %.3f ms\n", event_ms,
            kernel_ms);
    ok &= report("the events time the kernel", kernel_ms >= 50.0 && event_ms >= 0.97 * kernel_ms &&
                                                   event_ms <= 2.0 * kernel_ms + 10.0);

    // 2. Recording waits for nothing: behind a 200 ms kernel the event is not complete yet.
    CHECK(cudaEventRecord(start));
    spin<<<1, 32>>>(200 * ms, spun);
    auto before = std::chrono::steady_clock::now();
    CHECK(cudaEventRecord(stop));
    double record_ms = host_ms_since(before);
    cudaError_t query = cudaEventQuery(stop);
    float early = 0;
    cudaError_t elapsed = cudaEventElapsedTime(&early, start, stop);
    fprintf(stderr, "event_timing: recording behind a 200 ms kernel took %.3f ms\n", record_ms);
    ok &= report("recording returns at once", record_ms < 100.0);
    ok &= report("a pending event is not ready", query == cudaErrorNotReady);
    ok &= report("its elapsed time is not ready", elapsed == cudaErrorNotReady);
    CHECK(cudaEventSynchronize(stop));
    ok &= report("a synchronized event is complete", cudaEventQuery(stop) == cudaSuccess);

    // 3. A stream waiting for an event of another stream sees the work before it.
    cudaStream_t first, second;
    CHECK(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
    cudaEvent_t raised;
    CHECK(cudaEventCreateWithFlags(&raised, cudaEventDisableTiming));
    CHECK(cudaMemset(flag, 0, sizeof *flag));
    CHECK(cudaMemset(seen, 0, sizeof *seen));
    spin_then_raise<<<1, 1, 0, first>>>(30 * ms, flag);
    CHECK(cudaEventRecord(raised, first));
    CHECK(cudaStreamWaitEvent(second, raised, 0));
    copy_flag<<<1, 1, 0, second>>>(flag, seen);
    CHECK(cudaStreamSynchronize(second));
    int seen_host = 0;
    CHECK(cudaMemcpy(&seen_host, seen, sizeof seen_host, cudaMemcpyDeviceToHost));
    ok &= report("the waiting stream sees the other stream's work", seen_host == 1);

    // 4. A host function is queued behind a 200 ms kernel without waiting for it.
    volatile int called = 0;
    spin<<<1, 32, 0, first>>>(200 * ms, spun);
    before = std::chrono::steady_clock::now();
    CHECK(cudaLaunchHostFunc(first, host_function, (void *)&called));
    double queue_ms = host_ms_since(before);
    int called_early = called;
    CHECK(cudaStreamSynchronize(first));
    fprintf(stderr, "event_timing: queueing a host function took %.3f ms\n", queue_ms);
    ok &= report("queueing a host function returns at once", queue_ms < 100.0 && !called_early);
    ok &= report("the host function ran in stream order", called == 1);

    CHECK(cudaEventDestroy(raised));
    CHECK(cudaStreamDestroy(first));
    CHECK(cudaStreamDestroy(second));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(spun));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(seen));
    printf(ok ? "event_timing: ok\n" : "event_timing: FAILED\n");
    return ok ? 0 : 1;
}
