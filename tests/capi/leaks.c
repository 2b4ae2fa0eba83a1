/* Host memory stays flat over many create/release cycles through the C API: buffers allocated
 * and freed, streams created (each with a submission another stream waits for, so that its
 * pooled events are used) and released, tokens taken and released; and through the MLIR ABI,
 * streams and events created, recorded, waited for and destroyed. Resident memory is read from
 * /proc/self/statm after a warm-up and again after the cycles; the growth must stay under
 * 4 MB, 20 bytes a cycle (transparent huge pages off for the process; a thread stack of 2 MB
 * that the C library keeps for reuse may stay resident once). Usage: leaks KERNELS.ptx
 * [CYCLES [buffers|streams|mgpu]] (default: 200000 cycles of each). */
#include <sys/prctl.h>
#include <unistd.h>

#include "check.h"

void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventRecord(void *event, void *stream);

enum { LIMIT_BYTES = 4 << 20 };

/* Resident set size in bytes. */
static long resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    REQUIRE(f, "cannot open /proc/self/statm");
    long size = 0, resident = 0;
    REQUIRE(fscanf(f, "%ld %ld", &size, &resident) == 2, "cannot parse /proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void buffer_cycles(chevron_device device, long cycles)
{
    for (long i = 0; i < cycles; i++) {
        chevron_buffer buffer;
        CHECK(chevron_buffer_alloc(device, 64 + (size_t)(i % 7) * 256, &buffer));
        CHECK(chevron_buffer_free(buffer));
    }
}

/* Every stream records work that a long-lived stream waits for: the cross-stream wait takes
 * an event from the device's pool, which must come back when the stream goes away. */
static void stream_cycles(chevron_device device, chevron_stream waiter, chevron_buffer buffer,
                          long cycles)
{
    uint32_t word = 7;
    for (long i = 0; i < cycles; i++) {
        chevron_stream stream;
        chevron_token token;
        CHECK(chevron_stream_create(device, &stream));
        if (i % 16 == 0) {
            CHECK(chevron_buffer_write(buffer, 0, &word, sizeof word, stream, NULL, 0, &token));
            CHECK(chevron_buffer_memset(buffer, 0, 0, 4, 1, waiter, &token, 1, NULL));
            CHECK(chevron_token_release(token));
        }
        CHECK(chevron_stream_release(stream));
    }
    CHECK(chevron_stream_synchronize(waiter));
}

/* MLIR's lowering of gpu.wait: a fresh stream and an event per dependency, destroyed at once. */
static void mgpu_cycles(long cycles)
{
    void *waiter = mgpuStreamCreate();
    for (long i = 0; i < cycles; i++) {
        void *stream = mgpuStreamCreate(), *event = mgpuEventCreate();
        mgpuEventRecord(event, stream);
        mgpuStreamWaitEvent(waiter, event);
        mgpuEventDestroy(event);
        mgpuStreamDestroy(stream);
    }
    mgpuStreamSynchronize(waiter);
    mgpuStreamDestroy(waiter);
}

static void measure(const char *what, long cycles, void (*run)(long, void *), void *context)
{
    run(cycles / 20 + 1, context); /* warm-up: pools, registries and allocator caches settle */
    long before = resident_bytes();
    run(cycles, context);
    long growth = resident_bytes() - before;
    printf("%-8s %ld cycles: resident memory grew by %ld bytes (%.2f per cycle)\n", what, cycles,
           growth, (double)growth / (double)cycles);
    REQUIRE(growth < LIMIT_BYTES, "%s: %ld cycles grew resident memory by %ld bytes (limit %d)", what,
            cycles, growth, LIMIT_BYTES);
}

struct context {
    chevron_device device;
    chevron_stream waiter;
    chevron_buffer buffer;
};

static void run_buffers(long cycles, void *c) { buffer_cycles(((struct context *)c)->device, cycles); }

static void run_streams(long cycles, void *c)
{
    struct context *k = c;
    stream_cycles(k->device, k->waiter, k->buffer, cycles);
}

static void run_mgpu(long cycles, void *c)
{
    (void)c;
    mgpu_cycles(cycles);
}

int main(int argc, char **argv)
{
    REQUIRE(argc >= 2, "usage: leaks KERNELS.ptx [CYCLES [buffers|streams|mgpu]]");
    /* Resident memory is counted in base pages: with transparent huge pages one heap that grows
     * into a new 2 MB region counts 2 MB at once, whatever was leaked. */
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
    long cycles = argc > 2 ? atol(argv[2]) : 200000;
    REQUIRE(cycles > 0, "CYCLES must be positive");
    const char *only = argc > 3 ? argv[3] : NULL;
    REQUIRE(!only || !strcmp(only, "buffers") || !strcmp(only, "streams") || !strcmp(only, "mgpu"),
            "unknown kind %s", only);
    struct context c;
    CHECK(chevron_device_get(0, &c.device));
    CHECK(chevron_stream_create(c.device, &c.waiter));
    CHECK(chevron_buffer_alloc(c.device, 64, &c.buffer));
    if (!only || !strcmp(only, "buffers")) measure("buffers", cycles, run_buffers, &c);
    if (!only || !strcmp(only, "streams")) measure("streams", cycles, run_streams, &c);
    if (!only || !strcmp(only, "mgpu")) measure("mgpu", cycles, run_mgpu, &c);
    CHECK(chevron_buffer_free(c.buffer));
    CHECK(chevron_stream_release(c.waiter));
    puts("leaks: resident memory flat");
    return 0;
}
