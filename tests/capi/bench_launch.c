/* Launch overhead through the C ABIs, against the raw driver in the same run: the host time to
 * enqueue one launch of an empty kernel (no arguments, or 4), in bursts of 256 launches followed
 * by a synchronization, median over the bursts; the paths' bursts are interleaved. Paths:
 * chevron_launch (checked), mgpuLaunchKernel (with the mgpuModuleGetFunction MLIR calls before
 * each launch), and, on a CUDA device, raw cuLaunchKernel (libcuda.so.1 through dlopen), with
 * the ratios to raw. A benchmark, not a test: it prints figures (scripts/gpu/bench_capi.sh).
 * Usage: bench_launch KERNELS.ptx [BURSTS] */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <time.h>

#include "check.h"

void *mgpuModuleLoadJIT(void *data, int opt_level);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by,
                      intptr_t bz, int32_t smem, void *stream, void **params, void **extra,
                      size_t count);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, int8_t host_shared);

enum { BURST = 256, MAX_BURSTS = 1000 };

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare);
    return v[n / 2];
}

typedef void (*launch_fn)(void *context);
typedef void (*sync_fn)(void *context);

/* One way of launching: its calls and its per-launch times, one per burst. */
struct path {
    launch_fn launch;
    sync_fn sync;
    void *context;
    double per_launch[MAX_BURSTS];
};

/* Median per-launch enqueue time in ns of each path over `bursts` rounds (after one warm-up
 * round). Each round runs one burst of every path, in a rotating order, so that drift in the
 * machine's state (clocks, other load) affects every path alike. */
static void measure(int bursts, struct path *paths, int npaths, double *medians)
{
    for (int b = -1; b < bursts; b++) {
        for (int k = 0; k < npaths; k++) {
            struct path *p = &paths[(b + 1 + k) % npaths];
            double start = now_ns();
            for (int i = 0; i < BURST; i++) p->launch(p->context);
            double end = now_ns();
            p->sync(p->context);
            if (b >= 0) p->per_launch[b] = (end - start) / BURST;
        }
    }
    for (int k = 0; k < npaths; k++) medians[k] = median(paths[k].per_launch, bursts);
}

/* chevron_launch */
struct chevron_case {
    chevron_kernel kernel;
    chevron_stream stream;
    chevron_arg *args;
    size_t nargs;
};
static void chevron_once(void *c)
{
    struct chevron_case *k = c;
    CHECK(chevron_launch(k->kernel, k->stream, CHEVRON_DIM3(1, 1, 1), CHEVRON_DIM3(32, 1, 1), 0, k->args,
                         k->nargs, NULL, 0, NULL));
}
static void chevron_sync(void *c) { CHECK(chevron_stream_synchronize(((struct chevron_case *)c)->stream)); }

/* mgpuLaunchKernel, with mgpuModuleGetFunction before each launch as MLIR emits it */
struct mgpu_case {
    void *module, *stream;
    const char *name;
    void **params;
    size_t count;
};
static void mgpu_once(void *c)
{
    struct mgpu_case *k = c;
    void *f = mgpuModuleGetFunction(k->module, k->name);
    mgpuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, k->stream, k->params, NULL, k->count);
}
static void mgpu_sync(void *c) { mgpuStreamSynchronize(((struct mgpu_case *)c)->stream); }

/* raw cuLaunchKernel */
typedef int (*cu_launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, void *, void **, void **);
struct raw_case {
    cu_launch_t launch;
    int (*sync)(void *);
    void *function, *stream;
    void **params;
};
static void raw_once(void *c)
{
    struct raw_case *k = c;
    int rc = k->launch(k->function, 1, 1, 1, 32, 1, 1, 0, k->stream, k->params, NULL);
    REQUIRE(rc == 0, "cuLaunchKernel returned %d", rc);
}
static void raw_sync(void *c)
{
    struct raw_case *k = c;
    REQUIRE(k->sync(k->stream) == 0, "cuStreamSynchronize");
}

/* Sets up raw driver launches of `name` on CUDA device `ordinal`; 0 if unavailable. */
static int raw_setup(struct raw_case *k, int ordinal, const char *ptx, const char *name)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cuda) return 0;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*device_get)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*retain)(void **, int) = (int (*)(void **, int))dlsym(cuda, "cuDevicePrimaryCtxRetain");
    int (*set_current)(void *) = (int (*)(void *))dlsym(cuda, "cuCtxSetCurrent");
    int (*load)(void **, const void *) = (int (*)(void **, const void *))dlsym(cuda, "cuModuleLoadData");
    int (*get)(void **, void *, const char *) =
        (int (*)(void **, void *, const char *))dlsym(cuda, "cuModuleGetFunction");
    int (*stream_create)(void **, unsigned) = (int (*)(void **, unsigned))dlsym(cuda, "cuStreamCreate");
    k->launch = (cu_launch_t)dlsym(cuda, "cuLaunchKernel");
    k->sync = (int (*)(void *))dlsym(cuda, "cuStreamSynchronize");
    int device;
    void *context, *module;
    if (!init || !k->launch || init(0) || device_get(&device, ordinal) || retain(&context, device) ||
        set_current(context) || load(&module, ptx) || get(&k->function, module, name) ||
        stream_create(&k->stream, 1))
        return 0;
    return 1;
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
    REQUIRE(argc >= 2, "usage: bench_launch KERNELS.ptx [BURSTS]");
    int bursts = argc > 2 ? atoi(argv[2]) : 200;
    if (bursts < 1 || bursts > MAX_BURSTS) bursts = 200;
    char *ptx = read_file(argv[1]);

    chevron_device device;
    chevron_device_info info;
    chevron_module module;
    chevron_stream stream;
    CHECK(chevron_device_get(0, &device));
    CHECK(chevron_device_get_info(device, &info));
    CHECK(chevron_module_load(device, ptx, 0, &module));
    CHECK(chevron_stream_create(device, &stream));
    void *mgpu_module = mgpuModuleLoadJIT(ptx, 2), *mgpu_stream = mgpuStreamCreate();
    REQUIRE(mgpu_module && mgpu_stream, "mgpu setup");
    uint64_t p = 0;
    void *mp = mgpuMemAlloc(256, NULL, 0);
    chevron_buffer buffer;
    CHECK(chevron_buffer_alloc(device, 256, &buffer));
    CHECK(chevron_buffer_address(buffer, &p));
    float f = 1.0f;
    uint32_t n = 64;
    chevron_arg args4[] = {CHEVRON_ARG(p), CHEVRON_ARG(p), CHEVRON_ARG(f), CHEVRON_ARG(n)};
    void *params4[] = {&p, &p, &f, &n}, *mparams4[] = {&mp, &mp, &f, &n};

    printf("launch enqueue on %s (%s), median of %d interleaved bursts of %d, ns per launch:\n",
           info.label, info.name, bursts, BURST);
    printf("%-10s %10s %15s %20s %9s %9s\n", "kernel", "raw driver", "chevron_launch",
           "mgpu (+GetFunction)", "chevron/raw", "mgpu/raw");
    const char *names[] = {"empty", "four_args"};
    for (int which = 0; which < 2; which++) {
        chevron_kernel kernel;
        CHECK(chevron_module_get_kernel(module, names[which], &kernel));
        struct chevron_case c = {kernel, stream, which ? args4 : NULL, which ? 4 : 0};
        struct mgpu_case m = {mgpu_module, mgpu_stream, names[which], which ? mparams4 : NULL,
                              which ? 4 : 0};
        struct raw_case r = {0};
        static struct path paths[3];
        paths[0] = (struct path){chevron_once, chevron_sync, &c, {0}};
        paths[1] = (struct path){mgpu_once, mgpu_sync, &m, {0}};
        int npaths = 2;
        if (info.backend == CHEVRON_BACKEND_CUDA && raw_setup(&r, (int)info.ordinal, ptx, names[which])) {
            r.params = which ? params4 : NULL;
            paths[2] = (struct path){raw_once, raw_sync, &r, {0}};
            npaths = 3;
        }
        double medians[3];
        measure(bursts, paths, npaths, medians);
        if (npaths == 3)
            printf("%-10s %10.0f %15.0f %20.0f %9.3f %9.3f\n", names[which], medians[2], medians[0],
                   medians[1], medians[0] / medians[2], medians[1] / medians[2]);
        else
            printf("%-10s %10s %15.0f %20.0f %9s %9s\n", names[which], "n/a", medians[0], medians[1],
                   "n/a", "n/a");
        CHECK(chevron_kernel_release(kernel));
    }
    return 0;
}
