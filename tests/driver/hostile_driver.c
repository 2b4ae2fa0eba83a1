// Every exported function of chevron's CUDA driver library, then every runtime function of
// cuda_runtime_api.h it serves as libcudart.so.13, called with hostile arguments through its
// exact signature (the tables generated from the headers, hostile_driver.h), one hostile
// argument per call and plausible values (live objects, scratch buffers, 16 bytes) for the
// others (the runtime's probes: from zero on, with the runtime's codes, which share these
// numbers):
//   zero-before-init  every parameter 0/NULL before cuInit: CUDA_ERROR_NOT_INITIALIZED
//   zero-no-context   every parameter 0/NULL after cuInit, no current context: an error
//   zero              every parameter 0/NULL with a current context: an error
//   forged            each handle parameter a forged value (the address of an inaccessible
//                     page; device 9999): CUDA_ERROR_INVALID_HANDLE (INVALID_CONTEXT for a
//                     context, INVALID_DEVICE for a device, INVALID_VALUE for a device pointer)
//   destroyed         each handle parameter a destroyed object of its type: as forged
//   null              each pointer parameter NULL (and each device pointer and function
//                     pointer 0): INVALID_VALUE
//   huge              each size_t parameter 2^62: INVALID_VALUE or OUT_OF_MEMORY
//   range             each other scalar (enums, flags, counts) 0xC0DEC0DE: INVALID_VALUE
// Functions in the unsupported lists (STUBS.txt, both libraries') must answer
// CUDA_ERROR_NOT_SUPPORTED to every call after cuInit. `expectations` lists where CUDA
// documents another answer. A call must never
// crash, hang (20 s) or return CUDA_ERROR_UNKNOWN (a contained panic). Prints one line per
// call that broke these rules and ends with "hostile_driver: ok".
// Usage: hostile_driver KERNELS.ptx STUBS.txt [FUNCTION]   (HOSTILE_VERBOSE=1: every call)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "hostile_driver.h"

enum probe { BEFORE_INIT, NO_CONTEXT, ZERO, FORGED, DESTROYED, NULLED, HUGE_SIZE, RANGE };
static const char *const probe_names[] = {"zero-before-init", "zero-no-context", "zero", "forged",
                                          "destroyed", "null", "huge", "range"};
enum { ANY_POSITION = -1, SCRATCH_BYTES = 4096, MAX_PARAMS = 16 };
#define HUGE_BYTES ((uint64_t)1 << 62)
#define OUT_OF_RANGE 0xC0DEC0DEu

// Where CUDA documents another answer than the rule of the probe.
struct expectation {
    const char *function;
    enum probe probe;
    int position;  // the hostile parameter, or ANY_POSITION
    CUresult code;
};
static const struct expectation expectations[] = {
#include "hostile_driver_expect.h"
#include "hostile_runtime_expect.h"
};

// The objects a probe passes where a parameter is not the hostile one, and destroyed ones.
struct objects {
    CUcontext context;
    CUstream stream;
    CUevent event;
    CUmodule module;
    CUfunction function;
    CUgraph graph;
    CUgraphExec exec;
    CUgraphNode node;
    CUarray array;
    CUtexObject texture;
    CUmemoryPool pool;
    CUlinkState link;
    CUlibrary library;
    CUkernel kernel;
    CUuserObject user;
    CUdeviceptr memory;
};
static struct objects live, dead;
static const char *ptx;
static char **stubs;
static size_t stub_count;
static void *forged;
static unsigned char scratch[MAX_PARAMS][SCRATCH_BYTES];
static unsigned failures, calls;
static bool verbose;
static char current_call[256];

static void on_signal(int signal) {
    const char *what = signal == SIGALRM ? "HANG (20 s) in " : "CRASH in ";
    (void)!write(1, what, strlen(what));
    (void)!write(1, current_call, strlen(current_call));
    (void)!write(1, "\n", 1);
    if (signal == SIGALRM) _exit(3);
    raise(signal);
}

static void user_destroy(void *data) { (void)data; }

// Passed for every function-pointer parameter (host functions, callbacks, occupancy's
// shared-memory size function): returns 0 whatever the arguments, as each of them may.
static size_t callback(void) { return 0; }

static void create(struct objects *o) {
    CHECK(cuStreamCreate(&o->stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&o->event, 0));
    CHECK(cuModuleLoadData(&o->module, ptx));
    CHECK(cuModuleGetFunction(&o->function, o->module, "add_one"));
    CHECK(cuGraphCreate(&o->graph, 0));
    CHECK(cuGraphAddEmptyNode(&o->node, o->graph, NULL, 0));
    CHECK(cuGraphInstantiate(&o->exec, o->graph, 0));
    CUDA_ARRAY_DESCRIPTOR array = {16, 16, CU_AD_FORMAT_FLOAT, 1};
    CHECK(cuArrayCreate(&o->array, &array));
    CUDA_RESOURCE_DESC resource = {.resType = CU_RESOURCE_TYPE_ARRAY};
    resource.res.array.hArray = o->array;
    CUDA_TEXTURE_DESC texture = {0};
    CHECK(cuTexObjectCreate(&o->texture, &resource, &texture, NULL));
    CUmemPoolProps pool = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                           .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
    CHECK(cuMemPoolCreate(&o->pool, &pool));
    CHECK(cuLinkCreate(0, NULL, NULL, &o->link));
    CHECK(cuLibraryLoadData(&o->library, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cuLibraryGetKernel(&o->kernel, o->library, "add_one"));
    CHECK(cuUserObjectCreate(&o->user, o, user_destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    CHECK(cuMemAlloc(&o->memory, SCRATCH_BYTES));
}

static void destroy(struct objects *o) {
    CHECK(cuTexObjectDestroy(o->texture));
    CHECK(cuArrayDestroy(o->array));
    CHECK(cuGraphExecDestroy(o->exec));
    CHECK(cuGraphDestroy(o->graph));
    CHECK(cuModuleUnload(o->module));
    CHECK(cuLibraryUnload(o->library));
    CHECK(cuLinkDestroy(o->link));
    CHECK(cuMemPoolDestroy(o->pool));
    CHECK(cuUserObjectRelease(o->user, 1));
    CHECK(cuMemFree(o->memory));
    CHECK(cuEventDestroy(o->event));
    CHECK(cuStreamDestroy(o->stream));
}

// Whether any handle of `o` has the value of the destroyed one of its kind (an allocator
// may hand a destroyed object's address to a new one).
static bool reuses_dead(const struct objects *o) {
    return o->stream == dead.stream || o->event == dead.event || o->module == dead.module ||
           o->function == dead.function || o->graph == dead.graph || o->exec == dead.exec ||
           o->node == dead.node || o->array == dead.array || o->texture == dead.texture ||
           o->pool == dead.pool || o->link == dead.link || o->library == dead.library ||
           o->kernel == dead.kernel || o->user == dead.user || o->memory == dead.memory;
}

// A new live set, none of whose handles is a destroyed one's (the sets that are, stay
// allocated).
static void renew_live(void) {
    do create(&live);
    while (reuses_dead(&live));
}

// Whether the live objects still work after a function's calls (a call may have destroyed
// or changed one that was not its hostile argument, as CUDA allows); if not, a new set.
static void keep_live(const char *function) {
    CUcontext current = NULL;
    if (cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != live.context) {
        while (cuCtxPopCurrent(&current) == CUDA_SUCCESS) {
        }
        CHECK(cuCtxSetCurrent(live.context));
    }
    CUresult sticky = cuCtxSynchronize();
    if (sticky != CUDA_SUCCESS) {
        printf("FAIL %s: left the context with %d\n", function, sticky);
        failures++;
    }
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(live.stream, &capturing) == CUDA_SUCCESS &&
        capturing != CU_STREAM_CAPTURE_STATUS_NONE) {
        CUgraph graph;
        cuStreamEndCapture(live.stream, &graph);
    }
    CUfunction function_of;
    CUgraphNodeType type;
    CUDA_ARRAY_DESCRIPTOR array;
    CUDA_RESOURCE_DESC resource;
    cuuint64_t threshold;
    CUdeviceptr base;
    size_t bytes;
    CUresult stream = cuStreamQuery(live.stream), event = cuEventQuery(live.event);
    bool healthy = (stream == CUDA_SUCCESS || stream == CUDA_ERROR_NOT_READY) &&
                   (event == CUDA_SUCCESS || event == CUDA_ERROR_NOT_READY) &&
                   cuModuleGetFunction(&function_of, live.module, "add_one") == CUDA_SUCCESS &&
                   cuGraphNodeGetType(live.node, &type) == CUDA_SUCCESS &&
                   cuArrayGetDescriptor(&array, live.array) == CUDA_SUCCESS &&
                   cuTexObjectGetResourceDesc(&resource, live.texture) == CUDA_SUCCESS &&
                   cuMemPoolGetAttribute(live.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                         &threshold) == CUDA_SUCCESS &&
                   cuKernelGetFunction(&function_of, live.kernel) == CUDA_SUCCESS &&
                   cuMemGetAddressRange(&base, &bytes, live.memory) == CUDA_SUCCESS;
    // A link state and a user object cannot be queried: new ones after their functions.
    healthy = healthy && !strstr(function, "Link") && !strstr(function, "UserObject");
    if (!healthy) {
        if (verbose) printf("  (%s may have changed a live object: a new set)\n", function);
        renew_live();
    }
}

static bool is_stub(const char *name) {
    for (size_t i = 0; i < stub_count; i++)
        if (strcmp(stubs[i], name) == 0) return true;
    return false;
}

// The handle of kind `kind` in `o`, as the bytes of a slot.
static void put_handle(hostile_slot *slot, char kind, const struct objects *o) {
    uint64_t value = 0;
    switch (kind) {
    case 'S': value = (uintptr_t)o->stream; break;
    case 'E': value = (uintptr_t)o->event; break;
    case 'M': value = (uintptr_t)o->module; break;
    case 'F': value = (uintptr_t)o->function; break;
    case 'C': value = (uintptr_t)o->context; break;
    case 'G': value = (uintptr_t)o->graph; break;
    case 'X': value = (uintptr_t)o->exec; break;
    case 'N': value = (uintptr_t)o->node; break;
    case 'A': value = (uintptr_t)o->array; break;
    case 'T': value = o->texture; break;
    case 'P': value = (uintptr_t)o->pool; break;
    case 'L': value = (uintptr_t)o->link; break;
    case 'Y': value = (uintptr_t)o->library; break;
    case 'K': value = (uintptr_t)o->kernel; break;
    case 'U': value = (uintptr_t)o->user; break;
    case 'D': value = o->memory; break;
    }
    memcpy(slot->bytes, &value, sizeof value);
}

// Whether the destroyed handle of kind `kind` names a live object again: an allocator may
// hand a destroyed object's address to one made since (by a call that succeeded), and the
// handle is then valid. Such a probe is skipped.
static bool dead_is_alive_again(char kind) {
    CUgraphNodeType type;
    CUDA_ARRAY_DESCRIPTOR array;
    CUDA_RESOURCE_DESC resource;
    cuuint64_t value64;
    unsigned long long flags;
    CUfunction function;
    CUmodule module;
    CUdeviceptr base;
    size_t bytes;
    unsigned version;
    int value;
    switch (kind) {
    case 'S': return cuStreamQuery(dead.stream) != CUDA_ERROR_INVALID_HANDLE;
    case 'E': return cuEventQuery(dead.event) != CUDA_ERROR_INVALID_HANDLE;
    case 'M': return cuModuleGetFunction(&function, dead.module, "add_one") == CUDA_SUCCESS;
    case 'F':
        return cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, dead.function) ==
               CUDA_SUCCESS;
    case 'C': return cuCtxGetApiVersion(dead.context, &version) == CUDA_SUCCESS;
    case 'G': return cuGraphGetNodes(dead.graph, NULL, &bytes) == CUDA_SUCCESS;
    case 'X': return cuGraphExecGetFlags(dead.exec, (cuuint64_t *)&flags) == CUDA_SUCCESS;
    case 'N': return cuGraphNodeGetType(dead.node, &type) == CUDA_SUCCESS;
    case 'A': return cuArrayGetDescriptor(&array, dead.array) == CUDA_SUCCESS;
    case 'T': return cuTexObjectGetResourceDesc(&resource, dead.texture) == CUDA_SUCCESS;
    case 'P':
        return cuMemPoolGetAttribute(dead.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value64) ==
               CUDA_SUCCESS;
    case 'Y': return cuLibraryGetModule(&module, dead.library) == CUDA_SUCCESS;
    case 'K': return cuKernelGetFunction(&function, dead.kernel) == CUDA_SUCCESS;
    case 'D': return cuMemGetAddressRange(&base, &bytes, dead.memory) == CUDA_SUCCESS;
    }
    return false;
}

static bool is_handle(char kind) { return strchr("SEMFCGXNATPLYKUDdh", kind) != NULL; }

// Plausible values for every parameter: live objects, scratch buffers, 16 bytes.
static void plausible(const char *kinds, hostile_slot *slots) {
    memset(scratch, 0, sizeof scratch);
    for (int i = 0; kinds[i]; i++) {
        memset(&slots[i], 0, sizeof slots[i]);
        uint64_t value = 0;
        switch (kinds[i]) {
        case 'o':
        case 'i': value = (uintptr_t)scratch[i]; break;
        case 'z': value = 16; break;
        case 'f': value = (uintptr_t)callback; break;
        default:
            if (is_handle(kinds[i]) && kinds[i] != 'd' && kinds[i] != 'h') {
                put_handle(&slots[i], kinds[i], &live);
                continue;
            }
        }
        memcpy(slots[i].bytes, &value, sizeof value);
    }
}

// While the runtime's functions are probed: their codes are cudaError_t, named by the runtime.
static bool in_runtime;
static const char *(*runtime_error_name)(int);

static const char *name_of(CUresult code) {
    if (in_runtime) return runtime_error_name(code);
    const char *name = NULL;
    if (cuGetErrorName(code, &name) != CUDA_SUCCESS || !name) return "(not a CUresult)";
    return name;
}

// What the rules allow `function` to answer, and what `expectations` allow besides `function` to answer to `probe` of `position`.
static bool allowed(const struct hostile_function *function, bool stub, enum probe probe,
                    int position, CUresult code) {
    if (code == CUDA_ERROR_UNKNOWN) return false;
    for (size_t i = 0; i < sizeof expectations / sizeof expectations[0]; i++) {
        const struct expectation *e = &expectations[i];
        size_t stem = strcspn(e->function, "*");
        bool named = e->function[stem] == '*' ? strncmp(e->function, function->name, stem) == 0
                                               : strcmp(e->function, function->name) == 0;
        if (e->probe == probe && named &&
            (e->position == ANY_POSITION || e->position == position) && code == e->code)
            return true;
    }
    if (probe == BEFORE_INIT) return code == CUDA_ERROR_NOT_INITIALIZED;
    if (stub) return code == CUDA_ERROR_NOT_SUPPORTED;
    char kind = position >= 0 ? function->kinds[position] : 0;
    switch (probe) {
    case BEFORE_INIT:
    case NO_CONTEXT:
    case ZERO: return code != CUDA_SUCCESS || function->kinds[0] == 0;
    case FORGED:
    case DESTROYED:
        if (kind == 'C') return code == CUDA_ERROR_INVALID_CONTEXT;
        if (kind == 'd') return code == CUDA_ERROR_INVALID_DEVICE;
        if (kind == 'D') return code == CUDA_ERROR_INVALID_VALUE;
        // CUDA documents CUDA_ERROR_INVALID_VALUE for graphs, their nodes and executable
        // graphs, user objects and memory pools.
        if (strchr("GXNUP", kind) && code == CUDA_ERROR_INVALID_VALUE) return true;
        // The runtime documents cudaErrorInvalidValue for arrays and texture objects.
        if (in_runtime && strchr("AT", kind) && code == CUDA_ERROR_INVALID_VALUE) return true;
        return code == CUDA_ERROR_INVALID_HANDLE;
    case NULLED: return code == CUDA_ERROR_INVALID_VALUE;
    case HUGE_SIZE: return code == CUDA_ERROR_INVALID_VALUE || code == CUDA_ERROR_OUT_OF_MEMORY;
    case RANGE: return code == CUDA_ERROR_INVALID_VALUE;
    }
    return false;
}

static void call(const struct hostile_function *function, void *symbol, bool stub,
                 enum probe probe, int position, hostile_slot *slots) {
    snprintf(current_call, sizeof current_call, "%s %s %d", function->name, probe_names[probe],
             position);
    alarm(20);
    CUresult code = function->call(symbol, slots);
    alarm(0);
    calls++;
    bool ok = allowed(function, stub, probe, position, code);
    if (!ok) failures++;
    if (!ok || verbose)
        printf("%s %s %s %d (%s): %s\n", ok ? "ok" : "FAIL", function->name, probe_names[probe],
               position, function->kinds, name_of(code));
    fflush(stdout);
}

// Every probe of one function with a current context.
static void probe_all(const struct hostile_function *function, void *symbol, bool stub) {
    hostile_slot slots[MAX_PARAMS];
    const char *kinds = function->kinds;
    memset(slots, 0, sizeof slots);
    call(function, symbol, stub, ZERO, ANY_POSITION, slots);
    for (int i = 0; kinds[i]; i++) {
        char kind = kinds[i];
        uint64_t value;
        if (is_handle(kind)) {
            plausible(kinds, slots);
            value = kind == 'd' ? 9999 : (uintptr_t)forged;
            memcpy(slots[i].bytes, &value, sizeof value);
            call(function, symbol, stub, FORGED, i, slots);
            if (kind != 'd' && kind != 'h' && !dead_is_alive_again(kind)) {
                plausible(kinds, slots);
                put_handle(&slots[i], kind, &dead);
                call(function, symbol, stub, DESTROYED, i, slots);
            }
        }
        if (kind == 'o' || kind == 'i' || kind == 'D' || kind == 'f') {
            plausible(kinds, slots);
            memset(slots[i].bytes, 0, sizeof slots[i].bytes);
            call(function, symbol, stub, NULLED, i, slots);
        }
        if (kind == 'z') {
            plausible(kinds, slots);
            value = HUGE_BYTES;
            memcpy(slots[i].bytes, &value, sizeof value);
            call(function, symbol, stub, HUGE_SIZE, i, slots);
        }
        if (kind == 'n') {
            plausible(kinds, slots);
            value = OUT_OF_RANGE;
            memcpy(slots[i].bytes, &value, sizeof value);
            call(function, symbol, stub, RANGE, i, slots);
        }
    }
}

static void read_stubs(const char *path) {
    char *text = read_file(path, NULL);
    stubs = malloc(sizeof *stubs * 1024);
    for (char *line = strtok(text, "\n"); line && stub_count < 1024; line = strtok(NULL, "\n"))
        stubs[stub_count++] = line;
}

int main(int argc, char **argv) {
    EXPECT(argc == 3 || argc == 4);
    const char *only = argc == 4 ? argv[3] : NULL;
    verbose = getenv("HOSTILE_VERBOSE") != NULL;
    ptx = read_file(argv[1], NULL);
    read_stubs(argv[2]);
    struct sigaction action = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND | SA_NODEFER};
    int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &action, NULL);
    forged = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(forged != MAP_FAILED);
    void *library = dlopen("libcuda.so.1", RTLD_NOW);
    EXPECT(library);

    // Every function before cuInit, all parameters 0 (cuInit itself last).
    unsigned present = 0;
    for (unsigned f = 0; f < hostile_function_count; f++) {
        const struct hostile_function *function = &hostile_functions[f];
        void *symbol = dlsym(library, function->name);
        if (!symbol || strcmp(function->name, "cuInit") == 0) continue;
        if (only && strcmp(function->name, only) != 0) continue;
        hostile_slot slots[MAX_PARAMS];
        memset(slots, 0, sizeof slots);
        call(function, symbol, is_stub(function->name), BEFORE_INIT, ANY_POSITION, slots);
    }
    CHECK(cuInit(0));
    // Without a current context.
    for (unsigned f = 0; f < hostile_function_count; f++) {
        const struct hostile_function *function = &hostile_functions[f];
        void *symbol = dlsym(library, function->name);
        if (!symbol) continue;
        present++;
        if (only && strcmp(function->name, only) != 0) continue;
        hostile_slot slots[MAX_PARAMS];
        memset(slots, 0, sizeof slots);
        call(function, symbol, is_stub(function->name), NO_CONTEXT, ANY_POSITION, slots);
        CUcontext current;
        while (cuCtxPopCurrent(&current) == CUDA_SUCCESS) {
        }
        cuCtxSetCurrent(NULL);
    }

    // With a context, live objects and destroyed ones.
    CUdevice device;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuCtxCreate(&dead.context, NULL, 0, device));
    CHECK(cuCtxCreate(&live.context, NULL, 0, device));
    // The live set is made before the dead one is destroyed, so that no live object takes a
    // destroyed one's address.
    create(&dead);
    create(&live);
    destroy(&dead);
    if (reuses_dead(&live)) renew_live();
    CHECK(cuCtxSetCurrent(dead.context));
    CHECK(cuCtxDestroy(dead.context));
    CHECK(cuCtxSetCurrent(live.context));
    for (unsigned f = 0; f < hostile_function_count; f++) {
        const struct hostile_function *function = &hostile_functions[f];
        void *symbol = dlsym(library, function->name);
        if (!symbol) continue;
        if (only && strcmp(function->name, only) != 0) continue;
        probe_all(function, symbol, is_stub(function->name));
        keep_live(function->name);
    }
    // The runtime's functions with the same objects (a CUstream is a cudaStream_t, …) and the
    // same rules: its codes for these misuses have the driver's numbers.
    void *runtime = dlopen("libcudart.so.13", RTLD_NOW);
    EXPECT(runtime);
    runtime_error_name = (const char *(*)(int))dlsym(runtime, "cudaGetErrorName");
    EXPECT(runtime_error_name);
    in_runtime = true;
    unsigned runtime_present = 0;
    for (unsigned f = 0; f < hostile_runtime_function_count; f++) {
        const struct hostile_function *function = &hostile_runtime_functions[f];
        void *symbol = dlsym(runtime, function->name);
        if (!symbol) continue;
        runtime_present++;
        if (only && strcmp(function->name, only) != 0) continue;
        probe_all(function, symbol, is_stub(function->name));
        in_runtime = false;
        keep_live(function->name);
        in_runtime = true;
    }
    in_runtime = false;

    // Cases a single hostile argument does not reach: rows of a 2D fill closer than their
    // width with a height no memory holds (looped 2^40 times); the CUDA 10 forms of the
    // per-thread capture and prefetch, which take fewer arguments than the _v2 forms.
    CUresult (*capture_ptsz)(CUstream) = dlsym(library, "cuStreamBeginCapture_ptsz");
    CUresult (*prefetch_ptsz)(CUdeviceptr, size_t, CUdevice, CUstream) =
        dlsym(library, "cuMemPrefetchAsync_ptsz");
    EXPECT(capture_ptsz && prefetch_ptsz);
    CUdeviceptr managed;
    CHECK(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
    CUgraph captured;
    struct {
        const char *what;
        CUresult got, expected;
    } cases[] = {
        {"cuMemsetD2D8(pitch 0, 2^40 rows)", cuMemsetD2D8(live.memory, 0, 1, 16, 1ull << 40),
         CUDA_ERROR_INVALID_VALUE},
        {"cuMemsetD2D32(rows past the address space)",
         cuMemsetD2D32(live.memory, SIZE_MAX / 2, 1, 4, 4), CUDA_ERROR_INVALID_VALUE},
        {"cuStreamBeginCapture_ptsz(stream)", capture_ptsz(live.stream), CUDA_SUCCESS},
        {"cuStreamEndCapture", cuStreamEndCapture(live.stream, &captured), CUDA_SUCCESS},
        {"cuMemPrefetchAsync_ptsz(CU_DEVICE_CPU)",
         prefetch_ptsz(managed, 4096, CU_DEVICE_CPU, live.stream), CUDA_SUCCESS},
        {"cuMemPrefetchAsync_ptsz(device 0)", prefetch_ptsz(managed, 4096, 0, live.stream),
         CUDA_SUCCESS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        calls++;
        bool ok = cases[i].got == cases[i].expected;
        if (!ok) failures++;
        if (!ok || verbose)
            printf("%s %s: %s\n", ok ? "ok" : "FAIL", cases[i].what, name_of(cases[i].got));
    }
    printf("hostile_driver: %u driver and %u runtime functions, %u calls, %u broke the rules\n",
           present, runtime_present, calls, failures);
    if (failures) return 1;
    printf("hostile_driver: ok\n");
    return 0;
}
