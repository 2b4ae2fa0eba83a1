// A mutation loop over the driver library's code-object loaders: each round takes a seed
// (PTX text, a cubin, a fatbin), mutates it (bit flips, bytes set to boundary values, huge
// words written over header fields, truncation, appended garbage) and hands it to
// cuModuleLoadData, cuModuleLoadFatBinary, cuLibraryLoadData and cuLinkAddData, and, in a
// fatbin wrapper, to the runtime's registration of a program's fatbin (__cudaRegisterFatBinary,
// __cudaRegisterFunction, then cudaFuncGetAttributes, which loads it). The bytes
// end right before an inaccessible page, so a read past them faults at once instead of
// going unseen. An answer of CUDA_ERROR_UNKNOWN (a contained panic) is a failure; a crash
// or a hang (10 s) ends the run; the input of the round is in OUTDIR/current.bin, and each
// failing one is kept as OUTDIR/failure-N.bin.
// Usage: fuzz_loaders OUTDIR SEED ROUNDS SECONDS FILE...   (ROUNDS 0: until SECONDS;
//                                                            SEED 0: each FILE once, as is)
//        fuzz_loaders --write OUTDIR SEED COUNT FILE...    (COUNT mutated files, for
//                                                            `chevron inspect`)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { MAX_SEEDS = 64, PAGE = 4096 };
struct seed {
    char *bytes;
    size_t size;
};
static struct seed seeds[MAX_SEEDS];
static size_t seed_count;
static uint64_t state;
static char current_path[4096];
static const char *phase = "";

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void on_signal(int signal) {
    const char *what = signal == SIGALRM ? "fuzz_loaders: HANG (10 s) in " : "fuzz_loaders: CRASH in ";
    (void)!write(1, what, strlen(what));
    (void)!write(1, phase, strlen(phase));
    (void)!write(1, "; input: ", 9);
    (void)!write(1, current_path, strlen(current_path));
    (void)!write(1, "\n", 1);
    if (signal == SIGALRM) _exit(3);
    raise(signal);
}

// One mutation of `data` (`*size` bytes, room for `capacity`): header fields (the first
// 256 bytes) are hit more often than the rest.
static void mutate(unsigned char *data, size_t *size, size_t capacity) {
    static const uint64_t huge[] = {0xffffffffffffffffull, 0x7fffffffffffffffull,
                                    0x80000000ull,         0xffffffffull,
                                    0x7fffffffull,         1ull << 40,
                                    1ull << 62,            0};
    size_t n = *size;
    if (n == 0) return;
    size_t at = (next() % 2 && n > 256) ? next() % 256 : next() % n;
    switch (next() % 6) {
    case 0:
        for (int i = 0, flips = 1 + next() % 8; i < flips; i++) data[next() % n] ^= 1u << (next() % 8);
        break;
    case 1: data[at] = (unsigned char[]){0, 0xff, 0x7f, 0x80, 1}[next() % 5]; break;
    case 2: {
        uint64_t value = huge[next() % 8];
        size_t width = next() % 2 ? 8 : 4;
        at &= ~(width - 1);
        if (at + width <= n) memcpy(data + at, &value, width);
        break;
    }
    case 3: *size = next() % n; break;
    case 4: {
        size_t extra = next() % 64;
        if (n + extra <= capacity) {
            for (size_t i = 0; i < extra; i++) data[n + i] = (unsigned char)next();
            *size = n + extra;
        }
        break;
    }
    case 5: {
        size_t from = next() % n, len = next() % 32;
        if (from + len <= n && at + len <= n) memmove(data + at, data + from, len);
        break;
    }
    }
}

// A mutated copy of a random seed: `rounds` mutations.
static size_t make_input(unsigned char *out, size_t capacity) {
    const struct seed *s = &seeds[next() % seed_count];
    size_t size = s->size < capacity ? s->size : capacity;
    memcpy(out, s->bytes, size);
    for (int i = 0, rounds = 1 + next() % 4; i < rounds; i++) mutate(out, &size, capacity);
    return size;
}

static void save(const char *path, const unsigned char *data, size_t size) {
    FILE *f = fopen(path, "wb");
    EXPECT(f);
    EXPECT(fwrite(data, 1, size, f) == size || size == 0);
    fclose(f);
}

static void load_seeds(int count, char **paths) {
    for (int i = 0; i < count && seed_count < MAX_SEEDS; i++) {
        struct seed *s = &seeds[seed_count++];
        s->bytes = read_file(paths[i], &s->size);
    }
    EXPECT(seed_count > 0);
}

// CU_JIT_INPUT_* of the bytes, by their magic: what cuLinkAddData is told.
static CUjitInputType input_type(const unsigned char *data, size_t size) {
    if (size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0) return CU_JIT_INPUT_CUBIN;
    if (size >= 4 && memcmp(data, "\x50\xed\x55\xba", 4) == 0) return CU_JIT_INPUT_FATBINARY;
    return CU_JIT_INPUT_PTX;
}

// The runtime's registration of a statically built program's device code (what nvcc's host
// code calls at start-up), from the library serving libcudart.so.13.
static void **(*register_fatbin)(void *wrapper);
static void (*unregister_fatbin)(void **handle);
static void (*register_function)(void **handle, const char *host, char *device, const char *name,
                                 int limit, void *tid, void *bid, void *block, void *grid,
                                 int *warp);
static int (*function_attributes)(void *attributes, const void *host);
// The kernels of the seeds, each registered under its own host address.
static const char *const kernel_names[] = {"add_one", "scale", "saxpy", "count"};
static const char host_stubs[4];

static unsigned unknown_answers;

static void expect_known(CUresult code, const char *call, const char *outdir,
                         const unsigned char *data, size_t size) {
    if (code != CUDA_ERROR_UNKNOWN) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/failure-%u.bin", outdir, unknown_answers++);
    save(path, data, size);
    printf("fuzz_loaders: %s answered CUDA_ERROR_UNKNOWN (a contained panic); input: %s\n", call,
           path);
}

int main(int argc, char **argv) {
    struct sigaction action = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_NODEFER};
    int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &action, NULL);
    if (argc >= 6 && strcmp(argv[1], "--write") == 0) {
        state = strtoull(argv[3], NULL, 0) | 1;
        long count = strtol(argv[4], NULL, 0);
        load_seeds(argc - 5, argv + 5);
        size_t capacity = 1 << 22;
        unsigned char *data = malloc(capacity);
        for (long i = 0; i < count; i++) {
            size_t size = make_input(data, capacity);
            char path[4200];
            snprintf(path, sizeof path, "%s/input-%ld.bin", argv[2], i);
            save(path, data, size);
        }
        printf("fuzz_loaders: wrote %ld inputs\n", count);
        return 0;
    }
    EXPECT(argc >= 6);
    const char *outdir = argv[1];
    state = strtoull(argv[2], NULL, 0) | 1;
    bool replay = strtoull(argv[2], NULL, 0) == 0;
    long rounds = strtol(argv[3], NULL, 0);
    double seconds = strtod(argv[4], NULL);
    load_seeds(argc - 5, argv + 5);
    snprintf(current_path, sizeof current_path, "%s/current.bin", outdir);

    void *runtime = dlopen("libcudart.so.13", RTLD_NOW);
    EXPECT(runtime);
    register_fatbin = (void **(*)(void *))dlsym(runtime, "__cudaRegisterFatBinary");
    unregister_fatbin = (void (*)(void **))dlsym(runtime, "__cudaUnregisterFatBinary");
    register_function = (void (*)(void **, const char *, char *, const char *, int, void *, void *,
                                   void *, void *, int *))dlsym(runtime, "__cudaRegisterFunction");
    function_attributes = (int (*)(void *, const void *))dlsym(runtime, "cudaFuncGetAttributes");
    EXPECT(register_fatbin && unregister_fatbin && register_function && function_attributes);
    CHECK(cuInit(0));
    CUdevice device;
    CUcontext context;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuCtxCreate(&context, NULL, 0, device));

    size_t largest = 0;
    for (size_t i = 0; i < seed_count; i++)
        if (seeds[i].size > largest) largest = seeds[i].size;
    size_t capacity = largest + 64;
    size_t span = (capacity + PAGE - 1) / PAGE * PAGE;
    unsigned char *region = mmap(NULL, span + PAGE, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(region != MAP_FAILED);
    EXPECT(mprotect(region + span, PAGE, PROT_NONE) == 0);
    unsigned char *scratch = malloc(capacity);

    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long done = 0, loaded = 0;
    for (;; done++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double elapsed = (double)(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
        if (!replay && ((rounds > 0 && done >= rounds) || (rounds == 0 && elapsed >= seconds)))
            break;
        // Seed 0 replays the files as they are (a saved failure).
        if (replay && (size_t)done >= seed_count) break;
        size_t size = replay ? seeds[done].size : make_input(scratch, capacity);
        if (replay) memcpy(scratch, seeds[done].bytes, size);
        // The input ends where the inaccessible page begins.
        unsigned char *data = region + span - size;
        memcpy(data, scratch, size);
        save(current_path, data, size);
        alarm(10);

        CUmodule module;
        phase = "cuModuleLoadData";
        CUresult code = cuModuleLoadData(&module, data);
        expect_known(code, phase, outdir, data, size);
        if (code == CUDA_SUCCESS) {
            loaded++;
            CUfunction function;
            (void)cuModuleGetFunction(&function, module, "add_one");
            CHECK(cuModuleUnload(module));
        }
        phase = "cuModuleLoadFatBinary";
        code = cuModuleLoadFatBinary(&module, data);
        expect_known(code, phase, outdir, data, size);
        if (code == CUDA_SUCCESS) CHECK(cuModuleUnload(module));

        CUlibrary library;
        phase = "cuLibraryLoadData";
        code = cuLibraryLoadData(&library, data, NULL, NULL, 0, NULL, NULL, 0);
        expect_known(code, phase, outdir, data, size);
        if (code == CUDA_SUCCESS) CHECK(cuLibraryUnload(library));

        // A fatbin wrapper of version 1: { magic, version, data, NULL }.
        struct {
            int magic, version;
            const void *data;
            void *units;
        } wrapper = {0x466243b1, 1, data, NULL};
        phase = "__cudaRegisterFatBinary";
        void **handle = register_fatbin(&wrapper);
        if (handle) {
            for (int k = 0; k < 4; k++) {
                register_function(handle, &host_stubs[k], (char *)kernel_names[k], kernel_names[k],
                                  -1, NULL, NULL, NULL, NULL, NULL);
                unsigned char attributes[1024];
                phase = "cudaFuncGetAttributes";
                int status = function_attributes(attributes, &host_stubs[k]);
                expect_known((CUresult)status, phase, outdir, data, size);
            }
            unregister_fatbin(handle);
        }

        CUlinkState link;
        CHECK(cuLinkCreate(0, NULL, NULL, &link));
        phase = "cuLinkAddData";
        code = cuLinkAddData(link, input_type(data, size), data, size, "fuzz", 0, NULL, NULL);
        expect_known(code, phase, outdir, data, size);
        if (code == CUDA_SUCCESS) {
            void *image;
            size_t image_size;
            phase = "cuLinkComplete";
            code = cuLinkComplete(link, &image, &image_size);
            expect_known(code, phase, outdir, data, size);
        }
        CHECK(cuLinkDestroy(link));
        alarm(0);
        phase = "";
    }
    printf("fuzz_loaders: %ld inputs, %ld loaded as modules, %u answered CUDA_ERROR_UNKNOWN\n",
           done, loaded, unknown_answers);
    if (unknown_answers) return 1;
    printf("fuzz_loaders: ok\n");
    return 0;
}
