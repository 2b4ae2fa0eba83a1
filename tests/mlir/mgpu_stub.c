/*
 * A tracing stand-in for the MLIR mgpu* C ABI (23 functions of CudaRuntimeWrappers.cpp, with
 * the caller signatures of LLVM 22). It runs no kernel: it records every call, one line each,
 * so that the call order of a lowered program can be checked without a GPU. Memory calls are
 * real (host memory), so the host side of the program runs to completion.
 *
 * Handles are printed symbolically (stream#N, event#N, module#N, func#N, mem#N+OFFSET, host,
 * null) so traces are stable across runs; a handle of the wrong kind is printed as
 * EXPECTED!ACTUAL#N, e.g. event!stream#2 for a stream passed where an event was expected.
 * Calls from a thread other than the first caller's are prefixed with "[thread N] ". Trace lines go to the file named by $MGPU_STUB_TRACE,
 * or to stderr.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;

enum kind { STREAM, EVENT, MODULE, FUNC, MEM, KINDS };
static const char *kind_names[KINDS] = {"stream", "event", "module", "func", "mem"};

struct handle {
    void *ptr;
    size_t size;
    int id;
    int live;
};
#define MAX_HANDLES 4096
static struct handle handles[KINDS][MAX_HANDLES];
static int counts[KINDS];
/* Fake handles for streams, events, modules and functions point into this array. */
static char fake_storage[KINDS][MAX_HANDLES];

static FILE *out(void)
{
    if (!trace_file) {
        const char *path = getenv("MGPU_STUB_TRACE");
        trace_file = path ? fopen(path, "w") : NULL;
        if (!trace_file) trace_file = stderr;
        setvbuf(trace_file, NULL, _IOLBF, 0);
    }
    return trace_file;
}

static void *new_handle(enum kind k, void *ptr, size_t size)
{
    int n = counts[k]++;
    if (n >= MAX_HANDLES) abort();
    if (!ptr) ptr = &fake_storage[k][n];
    handles[k][n] = (struct handle){ptr, size, n + 1, 1};
    return ptr;
}

/* Writes a symbolic name for p into buf. */
static const char *name(enum kind k, const void *p, char *buf, size_t len)
{
    if (!p) return "null";
    for (int i = 0; i < counts[k]; i++) {
        struct handle *h = &handles[k][i];
        const char *b = h->ptr;
        if (k == MEM ? ((const char *)p >= b && (const char *)p < b + (h->size ? h->size : 1))
                     : p == h->ptr) {
            if (k == MEM && (const char *)p != b)
                snprintf(buf, len, "%s#%d+%td", kind_names[k], h->id, (const char *)p - b);
            else
                snprintf(buf, len, "%s#%d", kind_names[k], h->id);
            return buf;
        }
    }
    if (k == MEM) return "host";
    /* A handle of another kind where this kind was expected (LLVM 22 passes streams as events
     * across async.execute): name it, marked with "!" after the expected kind. */
    for (int other = 0; other < KINDS; other++) {
        if (other == (int)k || other == MEM) continue;
        for (int i = 0; i < counts[other]; i++) {
            if (p == handles[other][i].ptr) {
                snprintf(buf, len, "%s!%s#%d", kind_names[k], kind_names[other],
                         handles[other][i].id);
                return buf;
            }
        }
    }
    return "unknown";
}

#define N(k, p) name(k, p, (char[48]){0}, 48)
/* Small ids for the threads that call in, in order of their first call; 0 is not printed. */
static pthread_t threads[64];
static int thread_count;

static int thread_id(void)
{
    pthread_t self = pthread_self();
    for (int i = 0; i < thread_count; i++)
        if (pthread_equal(threads[i], self)) return i;
    if (thread_count == 64) return 63;
    threads[thread_count] = self;
    return thread_count++;
}

#define TRACE(...)                                                                                 \
    do {                                                                                           \
        pthread_mutex_lock(&lock);                                                                 \
        int tid_ = thread_id();                                                                    \
        if (tid_) fprintf(out(), "[thread %d] ", tid_);                                            \
        fprintf(out(), __VA_ARGS__);                                                               \
        fputc('\n', out());                                                                        \
        pthread_mutex_unlock(&lock);                                                               \
    } while (0)

void *mgpuModuleLoad(void *data, size_t size)
{
    pthread_mutex_lock(&lock);
    void *m = new_handle(MODULE, NULL, 0);
    pthread_mutex_unlock(&lock);
    unsigned char *d = data;
    TRACE("mgpuModuleLoad(size=%zu, magic=%02x%02x%02x%02x) -> %s", size, d[0], d[1], d[2], d[3],
          N(MODULE, m));
    return m;
}

void *mgpuModuleLoadJIT(void *data, int opt_level)
{
    pthread_mutex_lock(&lock);
    void *m = new_handle(MODULE, NULL, 0);
    pthread_mutex_unlock(&lock);
    const char *ptx = data;
    const char *entry = strstr(ptx, ".entry ");
    int entries = 0;
    for (; entry; entry = strstr(entry + 1, ".entry ")) entries++;
    TRACE("mgpuModuleLoadJIT(ptx_len=%zu, entries=%d, optLevel=%d) -> %s", strlen(ptx), entries,
          opt_level, N(MODULE, m));
    return m;
}

void mgpuModuleUnload(void *module) { TRACE("mgpuModuleUnload(%s)", N(MODULE, module)); }

/* Like the driver, the same (module, name) gives the same function handle. */
static struct {
    void *module;
    const char *name;
    void *func;
} functions[MAX_HANDLES];
static int function_count;

void *mgpuModuleGetFunction(void *module, const char *fname)
{
    void *f = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < function_count && !f; i++)
        if (functions[i].module == module && strcmp(functions[i].name, fname) == 0)
            f = functions[i].func;
    if (!f && function_count < MAX_HANDLES) {
        f = new_handle(FUNC, NULL, 0);
        functions[function_count].module = module;
        functions[function_count].name = fname;
        functions[function_count].func = f;
        function_count++;
    }
    pthread_mutex_unlock(&lock);
    TRACE("mgpuModuleGetFunction(%s, \"%s\") -> %s", N(MODULE, module), fname, N(FUNC, f));
    return f;
}

void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by,
                      intptr_t bz, int32_t smem, void *stream, void **params, void **extra,
                      size_t nparams)
{
    (void)params;
    TRACE("mgpuLaunchKernel(%s, grid=(%zd,%zd,%zd), block=(%zd,%zd,%zd), smem=%d, %s, "
          "params=%zu, extra=%s)",
          N(FUNC, f), gx, gy, gz, bx, by, bz, smem, N(STREAM, stream), nparams,
          extra ? "set" : "null");
}

/* LLVM 22 passes 14 arguments: no paramsCount. */
void mgpuLaunchClusterKernel(void *f, intptr_t cx, intptr_t cy, intptr_t cz, intptr_t gx,
                             intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by, intptr_t bz,
                             int32_t smem, void *stream, void **params, void **extra)
{
    (void)params;
    TRACE("mgpuLaunchClusterKernel(%s, cluster=(%zd,%zd,%zd), grid=(%zd,%zd,%zd), "
          "block=(%zd,%zd,%zd), smem=%d, %s, extra=%s)",
          N(FUNC, f), cx, cy, cz, gx, gy, gz, bx, by, bz, smem, N(STREAM, stream),
          extra ? "set" : "null");
}

void *mgpuStreamCreate(void)
{
    pthread_mutex_lock(&lock);
    void *s = new_handle(STREAM, NULL, 0);
    pthread_mutex_unlock(&lock);
    TRACE("mgpuStreamCreate() -> %s", N(STREAM, s));
    return s;
}

void mgpuStreamDestroy(void *s) { TRACE("mgpuStreamDestroy(%s)", N(STREAM, s)); }
void mgpuStreamSynchronize(void *s) { TRACE("mgpuStreamSynchronize(%s)", N(STREAM, s)); }

void mgpuStreamWaitEvent(void *s, void *e)
{
    TRACE("mgpuStreamWaitEvent(%s, %s)", N(STREAM, s), N(EVENT, e));
}

void *mgpuEventCreate(void)
{
    pthread_mutex_lock(&lock);
    void *e = new_handle(EVENT, NULL, 0);
    pthread_mutex_unlock(&lock);
    TRACE("mgpuEventCreate() -> %s", N(EVENT, e));
    return e;
}

void mgpuEventDestroy(void *e) { TRACE("mgpuEventDestroy(%s)", N(EVENT, e)); }
void mgpuEventSynchronize(void *e) { TRACE("mgpuEventSynchronize(%s)", N(EVENT, e)); }

void mgpuEventRecord(void *e, void *s)
{
    TRACE("mgpuEventRecord(%s, %s)", N(EVENT, e), N(STREAM, s));
}

void *mgpuMemAlloc(uint64_t size, void *stream, _Bool host_shared)
{
    void *p = NULL;
    if (size) {
        p = aligned_alloc(256, (size + 255) / 256 * 256);
        memset(p, 0xcd, size);
        pthread_mutex_lock(&lock);
        new_handle(MEM, p, size);
        pthread_mutex_unlock(&lock);
    }
    TRACE("mgpuMemAlloc(%llu, %s, isHostShared=%d) -> %s", (unsigned long long)size,
          N(STREAM, stream), host_shared, N(MEM, p));
    return p;
}

void mgpuMemFree(void *p, void *stream)
{
    TRACE("mgpuMemFree(%s, %s)", N(MEM, p), N(STREAM, stream));
    /* Not freed: the trace keeps naming the allocation, and a stub leaks nothing that matters. */
}

void mgpuMemcpy(void *dst, void *src, size_t size, void *stream)
{
    TRACE("mgpuMemcpy(%s, %s, %zu, %s)", N(MEM, dst), N(MEM, src), size, N(STREAM, stream));
    memcpy(dst, src, size);
}

void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream)
{
    TRACE("mgpuMemset32(%s, 0x%08x, %zu, %s)", N(MEM, dst), value, count, N(STREAM, stream));
    for (size_t i = 0; i < count; i++) ((uint32_t *)dst)[i] = value;
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream)
{
    TRACE("mgpuMemset16(%s, 0x%04x, %zu, %s)", N(MEM, dst), value, count, N(STREAM, stream));
    for (size_t i = 0; i < count; i++) ((uint16_t *)dst)[i] = value;
}

/* StridedMemRefType<char, rank>: {alloc, aligned, offset, sizes[rank], strides[rank]}. */
struct memref_desc {
    char *alloc;
    char *aligned;
    int64_t offset;
    int64_t dims[];
};

static void describe(int64_t rank, struct memref_desc *d, int64_t elem, char *buf, size_t len)
{
    int64_t n = 1;
    int w = snprintf(buf, len, "rank=%lld, sizes=[", (long long)rank);
    for (int64_t i = 0; i < rank; i++) {
        n *= d->dims[i];
        w += snprintf(buf + w, len - w, "%s%lld", i ? "," : "", (long long)d->dims[i]);
    }
    w += snprintf(buf + w, len - w, "], strides=[");
    for (int64_t i = 0; i < rank; i++)
        w += snprintf(buf + w, len - w, "%s%lld", i ? "," : "", (long long)d->dims[rank + i]);
    snprintf(buf + w, len - w, "], offset=%lld, elemBytes=%lld, bytes=%lld", (long long)d->offset,
             (long long)elem, (long long)(n * elem));
}

void mgpuMemHostRegisterMemRef(int64_t rank, struct memref_desc *desc, int64_t elem)
{
    char buf[256];
    describe(rank, desc, elem, buf, sizeof buf);
    TRACE("mgpuMemHostRegisterMemRef(%s)", buf);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, struct memref_desc *desc, int64_t elem)
{
    char buf[256];
    describe(rank, desc, elem, buf, sizeof buf);
    TRACE("mgpuMemHostUnregisterMemRef(%s)", buf);
}

void mgpuSetDefaultDevice(int32_t device) { TRACE("mgpuSetDefaultDevice(%d)", device); }

/* A TMA descriptor: 128 bytes of (host) memory standing for the device copy upstream returns. */
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *ranked_desc, int64_t data_type,
                                     int64_t interleave, int64_t swizzle, int64_t l2_promotion,
                                     int64_t oob_fill, int64_t *box_dims)
{
    void **desc = ranked_desc;
    void *map = aligned_alloc(64, 128);
    memset(map, 0, 128);
    pthread_mutex_lock(&lock);
    new_handle(MEM, map, 128);
    pthread_mutex_unlock(&lock);
    char box[64] = "";
    for (int64_t i = 0; i < rank && i < 5; i++)
        snprintf(box + strlen(box), sizeof box - strlen(box), "%s%lld", i ? "," : "",
                 (long long)box_dims[i]);
    TRACE("mgpuTensorMapEncodeTiledMemref(rank=%lld, %s, type=%lld, interleave=%lld, "
          "swizzle=%lld, l2=%lld, oob=%lld, box=(%s)) -> %s",
          (long long)rank, N(MEM, desc[1]), (long long)data_type, (long long)interleave,
          (long long)swizzle, (long long)l2_promotion, (long long)oob_fill, box, N(MEM, map));
    return map;
}
