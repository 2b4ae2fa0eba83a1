/* MLIR's mgpu* ABI called directly, for what the lowered programs of tests/mlir do not reach:
 * memcpy classification in every direction, host-shared and registered memory seen by kernels,
 * events destroyed with waits pending, a stream passed as an event, module unload right after
 * an asynchronous launch, and the error reports of misuse (stderr is captured and checked),
 * freed device memory and stray pointers in memcpy and memset among them.
 * Usage: mgpu KERNELS.ptx */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The LLVM 22 caller declarations (shared/reference/mgpu-abi.md). */
void *mgpuModuleLoadJIT(void *data, int opt_level);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by,
                      intptr_t bz, int32_t smem, void *stream, void **params, void **extra,
                      size_t count);
void mgpuLaunchClusterKernel(void *f, intptr_t cx, intptr_t cy, intptr_t cz, intptr_t gx,
                             intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by, intptr_t bz,
                             int32_t smem, void *stream, void **params, void **extra);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *desc, int64_t a, int64_t b, int64_t c,
                                     int64_t d, int64_t e, int64_t *box);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, int8_t host_shared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream);
void mgpuMemHostRegisterMemRef(int64_t rank, void *desc, int64_t elem_bytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *desc, int64_t elem_bytes);
void mgpuSetDefaultDevice(int32_t device);

#define REQUIRE(condition, ...)                                                                \
    do {                                                                                       \
        if (!(condition)) {                                                                    \
            fprintf(stdout, "%s:%d: %s: ", __FILE__, __LINE__, #condition);                    \
            fprintf(stdout, __VA_ARGS__);                                                      \
            fputc('\n', stdout);                                                               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* stderr goes to a temporary file, so that the reports of each step can be checked. */
static FILE *captured;

static void capture_stderr(void)
{
    captured = tmpfile();
    REQUIRE(captured && dup2(fileno(captured), 2) == 2, "cannot capture stderr");
}

/* The reports printed since the last call; every needle must occur (none: nothing printed). */
static void expect_reports(const char *step, const char *needles[])
{
    static long seen;
    char text[8192] = {0};
    fseek(captured, seen, SEEK_SET);
    size_t n = fread(text, 1, sizeof text - 1, captured);
    seen += (long)n;
    if (!needles[0]) REQUIRE(n == 0, "%s: unexpected report: %s", step, text);
    for (const char **needle = needles; *needle; needle++)
        REQUIRE(strstr(text, *needle), "%s: no \"%s\" in the reports: %s", step, *needle, text);
    printf("%-34s %s", step, n ? text : "(no report)\n");
}
#define EXPECT(step, ...) expect_reports(step, (const char *[]){__VA_ARGS__, NULL})
#define QUIET(step) expect_reports(step, (const char *[]){NULL})

static void launch_iota(void *f, void *stream, void *out, uint32_t n)
{
    void *params[] = {&out, &n};
    mgpuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, stream, params, NULL, 2);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: mgpu KERNELS.ptx");
    capture_stderr();
    void *module = mgpuModuleLoadJIT(read_file(argv[1]), 2);
    REQUIRE(module, "module load failed");
    void *iota = mgpuModuleGetFunction(module, "iota");
    REQUIRE(iota && iota == mgpuModuleGetFunction(module, "iota"), "one handle per name");
    QUIET("load and look up");

    /* memcpy in every direction, memset32/16 on the device. */
    void *s = mgpuStreamCreate();
    uint32_t *a = mgpuMemAlloc(64 * 4, s, 0), *b = mgpuMemAlloc(64 * 4, s, 0);
    uint32_t host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = 1000u + (uint32_t)i;
    mgpuMemcpy(a, host, sizeof host, s);             /* H2D */
    mgpuMemcpy(b, a, sizeof host, s);                /* D2D */
    mgpuMemset32(a, 7, 64, s);
    mgpuMemset16(a, 0xabcd, 2, s);                   /* the low 4 bytes of a */
    mgpuMemcpy(back, b, sizeof back, s);             /* D2H */
    for (int i = 0; i < 64; i++) REQUIRE(back[i] == 1000u + (uint32_t)i, "b[%d] = %u", i, back[i]);
    mgpuMemcpy(back, a, 8, s);
    REQUIRE(back[0] == 0xabcdabcdu && back[1] == 7, "a = %#x %#x", back[0], back[1]);
    uint32_t staged[4];
    mgpuMemcpy(staged, host, sizeof staged, s);      /* H2H */
    REQUIRE(staged[3] == 1003, "host copy");
    QUIET("memcpy and memset");

    /* A kernel writes host-shared memory; the host reads it after the synchronization. */
    uint32_t *shared = mgpuMemAlloc(64 * 4, NULL, 1);
    shared[63] = 12345;
    launch_iota(iota, s, shared, 32);
    mgpuStreamSynchronize(s);
    REQUIRE(shared[31] == 31 && shared[63] == 12345, "shared %u %u", shared[31], shared[63]);
    mgpuMemcpy(back, shared, 16, s);                 /* host-shared as a memcpy source */
    REQUIRE(back[3] == 3, "memcpy from host-shared memory");
    mgpuMemFree(shared, s);
    QUIET("host-shared memory");

    /* A registered rank-1 memref {alloc, aligned, offset, size, stride} with an offset of 4. */
    uint32_t *registered = calloc(40, 4);
    int64_t desc[5] = {(int64_t)(intptr_t)registered, (int64_t)(intptr_t)registered, 4, 32, 1};
    mgpuMemHostRegisterMemRef(1, desc, 4);
    launch_iota(iota, s, registered + 4, 32);
    mgpuStreamSynchronize(s);
    mgpuMemHostUnregisterMemRef(1, desc, 4);
    REQUIRE(registered[4 + 31] == 31 && registered[4] == 0 && registered[5] == 1, "registered");
    free(registered);
    QUIET("host-registered memory");

    /* s2 waits for an event of s1 destroyed at once; then for s1 itself passed as an event. */
    void *s1 = mgpuStreamCreate(), *s2 = mgpuStreamCreate();
    void *e = mgpuEventCreate();
    launch_iota(iota, s1, a, 64);
    mgpuEventRecord(e, s1);
    mgpuStreamWaitEvent(s2, e);
    mgpuEventDestroy(e);
    mgpuMemcpy(back, a, sizeof back, s2);
    REQUIRE(back[63] == 63, "ordered after the event: %u", back[63]);
    mgpuMemset32(b, 5, 64, s1);
    mgpuStreamWaitEvent(s2, s1);
    mgpuEventSynchronize(s1);
    mgpuEventDestroy(s1);
    mgpuMemcpy(back, b, 4, s2);
    REQUIRE(back[0] == 5, "ordered after the stream");
    QUIET("events and streams as events");

    /* LLVM <= 20: load, launch, unload at once; the launch still runs. */
    void *once = mgpuModuleLoadJIT(read_file(argv[1]), 2);
    launch_iota(mgpuModuleGetFunction(once, "iota"), s1, b, 64);
    mgpuModuleUnload(once);
    mgpuStreamSynchronize(s1);
    mgpuMemcpy(back, b, sizeof back, s1);
    REQUIRE(back[40] == 40, "launch before unload: %u", back[40]);
    QUIET("unload after an async launch");

    /* Misuse: reported on stderr, naming the function and kernel; execution goes on. */
    REQUIRE(!mgpuModuleGetFunction(module, "nope"), "unknown kernel");
    EXPECT("unknown kernel", "mgpuModuleGetFunction", "`nope` not found");
    uint32_t n = 4;
    void *params[] = {&a, &n, &n};
    mgpuLaunchKernel(iota, 1, 1, 1, 64, 1, 1, 0, s1, params, NULL, 3);
    EXPECT("parameter count", "mgpuLaunchKernel", "kernel `iota`", "takes 2 parameters");
    mgpuLaunchKernel(iota, 1, 1, 1, 4096, 1, 1, 0, s1, params, NULL, 2);
    EXPECT("block too large", "mgpuLaunchKernel", "iota", "4096");
    /* A launch that passed its checks does not let a different one skip them. */
    mgpuLaunchKernel(iota, 1, 1, 1, 64, 1, 1, 0, s1, params, NULL, 2);
    QUIET("good launch");
    void *null_param[] = {&a, NULL};
    mgpuLaunchKernel(iota, 1, 1, 1, 64, 1, 1, 0, s1, null_param, NULL, 2);
    EXPECT("NULL parameter after a good launch", "mgpuLaunchKernel", "iota", "NULL");
    mgpuLaunchKernel(iota, 1, 1, 1, 4096, 1, 1, 0, s1, params, NULL, 2);
    EXPECT("block too large after a good launch", "mgpuLaunchKernel", "iota", "4096");
    mgpuLaunchKernel(iota, 1, 1, 1, 64, 1, 1, 0, s1, params, NULL, 2);
    QUIET("good launch again");
    mgpuStreamSynchronize(s1);
    const char *devices = getenv("CHEVRON_DEVICES");
    int on_cuda = devices && strncmp(devices, "cuda", 4) == 0;
    /* Clusters of several blocks run on every device (an sm_90 GPU, the CPU device); a grid
       that is not a multiple of the cluster is refused; a tensor map needs its box. */
    mgpuLaunchClusterKernel(iota, 2, 1, 1, 2, 1, 1, 64, 1, 1, 0, s1, params, NULL);
    QUIET("cluster of two blocks");
    mgpuLaunchClusterKernel(iota, 2, 1, 1, 3, 1, 1, 64, 1, 1, 0, s1, params, NULL);
    EXPECT("grid not a multiple of the cluster", "mgpuLaunchClusterKernel", "iota");
    mgpuLaunchClusterKernel(iota, 1, 1, 1, 1, 1, 1, 64, 1, 1, 0, s1, params, NULL);
    QUIET("cluster of one block");
    REQUIRE(!mgpuTensorMapEncodeTiledMemref(2, desc, 0, 0, 0, 0, 0, NULL), "no TMA");
    EXPECT("tensor map without box dimensions", "mgpuTensorMapEncodeTiledMemref");
    mgpuStreamDestroy(s2);
    mgpuStreamSynchronize(s2);
    EXPECT("destroyed stream", "mgpuStreamSynchronize", "already released or destroyed");
    mgpuStreamSynchronize(e);
    EXPECT("event as a stream", "mgpuStreamSynchronize", "CUevent handle, not a CUstream");
    REQUIRE(!mgpuMemAlloc(UINT64_MAX, s1, 0) && !mgpuMemAlloc(UINT64_MAX, s1, 1), "huge allocations");
    EXPECT("huge allocations", "mgpuMemAlloc", "18446744073709551615 bytes");
    mgpuMemFree((void *)(uintptr_t)0x1000, s1);
    EXPECT("foreign free", "mgpuMemFree", "not allocated by mgpuMemAlloc");
    mgpuSetDefaultDevice(99);
    EXPECT("no such device", "mgpuSetDefaultDevice", "device 99");
    int64_t strided[7] = {0, (int64_t)(intptr_t)host, 0, 4, 4, 1, 2};
    mgpuMemHostRegisterMemRef(2, strided, 4);
    EXPECT("strided memref", "mgpuMemHostRegisterMemRef", "not dense");

    mgpuStreamSynchronize(s1);
    mgpuMemFree(a, s1);
    mgpuMemFree(b, s1);

    /* Freed device memory and stray pointers are looked up and reported, never dereferenced. */
    /* CUDA: the driver no longer knows the address, and the host cannot read it; the CPU
     * device knows it as freed. Either way a report, and the process goes on. */
    const char *freed = on_cuda ? "0x" : "not inside one live allocation";
    mgpuMemcpy(back, a, sizeof back, s1);
    EXPECT("memcpy from freed memory", "mgpuMemcpy", freed);
    mgpuMemcpy(b, host, sizeof host, s1);
    EXPECT("memcpy to freed memory", "mgpuMemcpy", freed);
    mgpuMemset32(a, 1, 64, s1);
    EXPECT("memset of freed memory", "mgpuMemset32", freed);
    mgpuMemcpy(back, (void *)(uintptr_t)0x1000, 16, s1);
    EXPECT("memcpy from a stray pointer", "mgpuMemcpy", "src 0x1000 (16 bytes) is neither device memory");
    mgpuMemset16((void *)(uintptr_t)0x1000, 1, 8, s1);
    EXPECT("memset of a stray pointer", "mgpuMemset16", "dst 0x1000 (16 bytes) is neither");
    mgpuStreamSynchronize(s1);
    QUIET("the stream still works");
    mgpuStreamDestroy(s1);
    mgpuStreamDestroy(s);
    mgpuModuleUnload(module);
    mgpuModuleUnload(module);
    EXPECT("double unload", "mgpuModuleUnload", "CUmodule handle");
    printf("capi mgpu: ok\n");
    return 0;
}
