// Loads and unloads a CUDA shared library CYCLES times (each load registers its fatbin, each
// unload unregisters it), launching its kernel every time; host memory (RSS) and device
// memory in use must stay flat. Usage: dlopen_host LIBRARY CYCLES
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <cuda_runtime_api.h>

static long rss_kib() {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status && fgets(line, sizeof line, status))
        if (strncmp(line, "VmRSS:", 6) == 0) kib = atol(line + 6);
    if (status) fclose(status);
    return kib;
}

// Device memory in use: from the CUDA driver when there is one (device-wide, whatever runtime
// serves the program), else from the runtime's cudaMemGetInfo.
static size_t device_used() {
    static void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    size_t free = 0, total = 0;
    if (driver) {
        using Init = int (*)(unsigned);
        using Get = int (*)(int *, int);
        using Retain = int (*)(void **, int);
        using Push = int (*)(void *);
        using Pop = int (*)(void **);
        using Info = int (*)(size_t *, size_t *);
        int device = 0;
        void *context = nullptr;
        if (reinterpret_cast<Init>(dlsym(driver, "cuInit"))(0) == 0 &&
            reinterpret_cast<Get>(dlsym(driver, "cuDeviceGet"))(&device, 0) == 0 &&
            reinterpret_cast<Retain>(dlsym(driver, "cuDevicePrimaryCtxRetain"))(&context, device) == 0 &&
            reinterpret_cast<Push>(dlsym(driver, "cuCtxPushCurrent_v2"))(context) == 0) {
            reinterpret_cast<Info>(dlsym(driver, "cuMemGetInfo_v2"))(&free, &total);
            reinterpret_cast<Pop>(dlsym(driver, "cuCtxPopCurrent_v2"))(&context);
            return total - free;
        }
    }
    cudaMemGetInfo(&free, &total);
    return total - free;
}

static bool cycle(const char *path) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        printf("dlopen: %s\n", dlerror());
        return false;
    }
    auto run = reinterpret_cast<int (*)(void)>(dlsym(library, "run_increment"));
    bool ok = run && run() == 1;
    dlclose(library);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int cycles = atoi(argv[2]);
    // Warm-up: the allocator's arenas and the CPU device's worker threads reach their working
    // size in the first hundred or so cycles.
    int warmup = cycles / 10 > 100 ? cycles / 10 : 100;
    bool ok = true;
    for (int i = 0; i < warmup; i++) ok = ok && cycle(argv[1]);
    long rss_before = rss_kib();
    size_t device_before = device_used();
    for (int i = 0; i < cycles; i++) ok = ok && cycle(argv[1]);
    long rss_growth = rss_kib() - rss_before;
    long device_growth = (long)device_used() - (long)device_before;
    printf("dlopen: %d cycles, host RSS %+ld KiB, device memory %+ld bytes\n", cycles, rss_growth,
           device_growth);
    // Flat: less than 1 KiB of host memory per cycle, and less than 1 MiB of device memory
    // in all (the driver's allocation granularity is 2 MiB).
    ok = ok && rss_growth < cycles && device_growth < (1 << 20);
    printf("dlopen: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
