// Hostile use of the CUDA runtime API: every case must come back as CUDA's documented error
// code (printed by name), never as a crash, a hang or a silent wrong answer. Run as
// `hostile_cudart CASE`; each case prints one line per check and ends with "CASE: ok" or
// "CASE: FAILED". The cases:
//   copy-unmapped   copies to and from unmapped (and read-only) host memory
//   host-register   cudaHostRegister of NULL, of 0 bytes, of unmapped memory
//   pitch           2D copies whose pitch or rows wrap the address space; cudaMallocPitch ~0
//   null-args       a NULL value pointer in a launch's, a captured launch's and a graph
//                   node update's argument array
//   null-outputs    NULL output pointers
//   cooperative     a cooperative grid beyond co-residency; one within it that syncs the grid
//   peer            copies between two devices (run with CHEVRON_CPU_DEVICES=2)
//   reset           cudaDeviceReset after a kernel fault
//   freed-pointer   cudaPointerGetAttributes of a freed allocation
//   capture         a nested capture; a stream destroyed while it captures
//   properties      the profiler calls and the device properties programs branch on
//   textures        bad channel descriptors and extents, array windows out of range, surfaces
//                   over arrays without the flag, freed arrays and destroyed objects
//   flags           unknown stream, event, wait, managed, register and instantiate flags,
//                   read-only function attributes, a non-stream ending a capture, NULL frees
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <unistd.h>

namespace cg = cooperative_groups;

// cuda_profiler_api.h's declarations (the PyPI toolkit ships without that header).
extern "C" cudaError_t cudaProfilerStart(void);
extern "C" cudaError_t cudaProfilerStop(void);

static bool all_ok = true;

// Checks that `call` returned `expected`, printing both by name, and clears the error.
#define EXPECT(call, expected)                                                                  \
    do {                                                                                       \
        cudaError_t got_ = (call);                                                             \
        (void)cudaGetLastError();                                                              \
        bool ok_ = got_ == (expected);                                                         \
        printf("%-60s %s%s\n", #call, cudaGetErrorName(got_), ok_ ? "" : "  <-- unexpected");  \
        if (!ok_) all_ok = false;                                                              \
    } while (0)

// The usual error-checking macro: a failure ends the case.
#define CHECK(call)                                                                             \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_));      \
            return false;                                                                      \
        }                                                                                      \
    } while (0)

#define REQUIRE(condition)                                                                      \
    do {                                                                                       \
        bool ok_ = (condition);                                                                \
        printf("%-60s %s\n", #condition, ok_ ? "yes" : "NO  <-- unexpected");                  \
        if (!ok_) all_ok = false;                                                              \
    } while (0)

__device__ int symbol_values[16];

__global__ void add_one(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += 1;
}

__global__ void scale(float *data, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

__global__ void write_past_end(int *data, int n) { data[threadIdx.x + n] = 1; }

// Each block writes its index, the grid syncs, then block 0 sums what every block wrote.
__global__ void grid_sum(int *slots, int *total) {
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) slots[blockIdx.x] = blockIdx.x;
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; b++) sum += slots[b];
        *total = sum;
    }
}

// A page that was mapped and is not any more.
static void *unmapped_page() {
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p, page);
    return p;
}

static bool copy_unmapped() {
    int host[16] = {};
    int *dev = nullptr;
    CHECK(cudaMalloc(&dev, sizeof host));
    CHECK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
    void *gone = unmapped_page();
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    EXPECT(cudaMemcpy(gone, dev, sizeof host, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(dev, gone, sizeof host, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(gone, host, sizeof host, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(host, gone, sizeof host, cudaMemcpyDefault), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyAsync(gone, dev, sizeof host, cudaMemcpyDeviceToHost, stream),
           cudaErrorInvalidValue);
    EXPECT(cudaMemcpyAsync(dev, gone, sizeof host, cudaMemcpyHostToDevice, stream),
           cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2D(gone, 64, dev, 64, 64, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2DAsync(dev, 64, gone, 64, 64, 1, cudaMemcpyHostToDevice, stream),
           cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToSymbol(symbol_values, gone, sizeof host), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyFromSymbol(gone, symbol_values, sizeof host), cudaErrorInvalidValue);
    // A range that starts in mapped memory and runs past its end.
    long page = sysconf(_SC_PAGESIZE);
    char *two = (char *)mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(two + page, page);
    EXPECT(cudaMemcpy(dev, two + page - 8, sizeof host, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    // Read-only memory is a source, never a destination.
    mprotect(two, page, PROT_READ);
    EXPECT(cudaMemcpy(two, dev, sizeof host, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(dev, two, sizeof host, cudaMemcpyHostToDevice), cudaSuccess);
    // Nothing is sticky: the device still works.
    for (int i = 0; i < 16; i++) host[i] = i;
    CHECK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
    add_one<<<1, 16>>>(dev, 16);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    REQUIRE(host[0] == 1 && host[15] == 16);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dev));
    return true;
}

static bool host_register() {
    static int buffer[1024];
    EXPECT(cudaHostRegister(nullptr, 4096, cudaHostRegisterDefault), cudaErrorInvalidValue);
    EXPECT(cudaHostRegister(buffer, 0, cudaHostRegisterDefault), cudaErrorInvalidValue);
    EXPECT(cudaHostRegister(unmapped_page(), 4096, cudaHostRegisterDefault),
           cudaErrorInvalidValue);
    // A registered range works in a launch.
    for (int i = 0; i < 1024; i++) buffer[i] = i;
    CHECK(cudaHostRegister(buffer, sizeof buffer, cudaHostRegisterDefault));
    int *dev = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&dev, buffer, 0));
    add_one<<<4, 256>>>(dev, 1024);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    REQUIRE(buffer[0] == 1 && buffer[1023] == 1024);
    CHECK(cudaHostUnregister(buffer));
    return true;
}

static bool pitch() {
    char *dev = nullptr;
    size_t dev_pitch = 0;
    CHECK(cudaMallocPitch((void **)&dev, &dev_pitch, 100, 4));
    REQUIRE(dev_pitch >= 100);
    static char host[4096];
    const size_t huge = SIZE_MAX / 2;
    EXPECT(cudaMemcpy2D(host, huge, dev, dev_pitch, 100, 4, cudaMemcpyDeviceToHost),
           cudaErrorInvalidPitchValue);
    EXPECT(cudaMemcpy2D(dev, dev_pitch, host, huge, 100, 4, cudaMemcpyHostToDevice),
           cudaErrorInvalidPitchValue);
    EXPECT(cudaMemcpy2DAsync(host, huge, dev, dev_pitch, 100, 4, cudaMemcpyDeviceToHost, 0),
           cudaErrorInvalidPitchValue);
    EXPECT(cudaMemcpy2D(host, 64, dev, dev_pitch, 100, 4, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    // Rows that run past the end of the address space.
    EXPECT(cudaMemcpy2D(host, 1 << 30, dev, dev_pitch, 100, SIZE_MAX / 1024,
                        cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    char *dev_rows = nullptr;
    size_t rows_pitch = 0;
    EXPECT(cudaMallocPitch((void **)&dev_rows, &rows_pitch, SIZE_MAX, 1),
           cudaErrorMemoryAllocation);
    EXPECT(cudaMallocPitch((void **)&dev_rows, &rows_pitch, SIZE_MAX - 4096, 1),
           cudaErrorMemoryAllocation);
    EXPECT(cudaMallocPitch((void **)&dev_rows, &rows_pitch, 1 << 20, SIZE_MAX / 1024),
           cudaErrorMemoryAllocation);
    // A valid 2D round trip.
    for (int i = 0; i < 400; i++) host[i] = (char)i;
    CHECK(cudaMemcpy2D(dev, dev_pitch, host, 100, 100, 4, cudaMemcpyHostToDevice));
    static char back[400];
    CHECK(cudaMemcpy2D(back, 100, dev, dev_pitch, 100, 4, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(host, back, 400) == 0);
    CHECK(cudaFree(dev));
    return true;
}

static bool null_args() {
    float *dev = nullptr;
    CHECK(cudaMalloc(&dev, 64 * sizeof(float)));
    CHECK(cudaMemset(dev, 0, 64 * sizeof(float)));
    float factor = 2.0f;
    int n = 64;
    void *with_null[] = {&dev, nullptr, &n};
    dim3 grid(1), block(64);
    EXPECT(cudaLaunchKernel((void *)scale, grid, block, with_null, 0, 0), cudaErrorInvalidValue);
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    EXPECT(cudaLaunchKernel((void *)scale, grid, block, with_null, 0, stream),
           cudaErrorInvalidValue);
    void *args[] = {&dev, &factor, &n};
    CHECK(cudaLaunchKernel((void *)scale, grid, block, args, 0, stream));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    cudaGraphNode_t nodes[4];
    CHECK(cudaGraphGetNodes(graph, nodes, &count));
    cudaKernelNodeParams params = {};
    params.func = (void *)scale;
    params.gridDim = grid;
    params.blockDim = block;
    params.kernelParams = with_null;
    EXPECT(cudaGraphExecKernelNodeSetParams(exec, nodes[count - 1], &params),
           cudaErrorInvalidValue);
    params.kernelParams = nullptr;
    EXPECT(cudaGraphExecKernelNodeSetParams(exec, nodes[count - 1], &params),
           cudaErrorInvalidValue);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(dev));
    return true;
}

static bool null_outputs() {
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, add_one, 128, 0),
           cudaErrorInvalidValue);
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(nullptr, add_one, 128, 0, 0),
           cudaErrorInvalidValue);
    EXPECT(cudaFuncGetAttributes(nullptr, add_one), cudaErrorInvalidValue);
    EXPECT(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaGetDevice(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetAttribute(nullptr, cudaDevAttrMaxThreadsPerBlock, 0),
           cudaErrorInvalidValue);
    EXPECT(cudaDriverGetVersion(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaMalloc(nullptr, 64), cudaErrorInvalidValue);
    EXPECT(cudaMallocHost(nullptr, 64), cudaErrorInvalidValue);
    EXPECT(cudaMallocManaged(nullptr, 64, cudaMemAttachGlobal), cudaErrorInvalidValue);
    size_t pitch_value;
    void *pitched;
    EXPECT(cudaMallocPitch(nullptr, &pitch_value, 64, 4), cudaErrorInvalidValue);
    EXPECT(cudaMallocPitch(&pitched, nullptr, 64, 4), cudaErrorInvalidValue);
    EXPECT(cudaMemGetInfo(nullptr, nullptr), cudaErrorInvalidValue);
    int value = 0;
    EXPECT(cudaPointerGetAttributes(nullptr, &value), cudaErrorInvalidValue);
    EXPECT(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaEventCreate(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetLimit(nullptr, cudaLimitStackSize), cudaErrorInvalidValue);
    EXPECT(cudaGetSymbolAddress(nullptr, symbol_values), cudaErrorInvalidValue);
    EXPECT(cudaGetSymbolSize(nullptr, symbol_values), cudaErrorInvalidValue);
    EXPECT(cudaDeviceCanAccessPeer(nullptr, 0, 0), cudaErrorInvalidValue);
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamEndCapture(stream, nullptr), cudaErrorInvalidValue);
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(stream, &graph));
    EXPECT(cudaGraphInstantiate(nullptr, graph, 0), cudaErrorInvalidValue);
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    // None of it is sticky.
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    REQUIRE(count >= 1);
    return true;
}

static bool cooperative() {
    int per_sm = 0, sms = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 64, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int resident = per_sm * sms;
    printf("co-resident blocks: %d per multiprocessor x %d\n", per_sm, sms);
    REQUIRE(resident > 0 && resident < 40000);
    int *slots = nullptr, *total = nullptr;
    CHECK(cudaMalloc(&slots, 40000 * sizeof(int)));
    CHECK(cudaMalloc(&total, sizeof(int)));
    void *args[] = {&slots, &total};
    EXPECT(cudaLaunchCooperativeKernel((void *)grid_sum, dim3(40000), dim3(64), args, 0, 0),
           cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaLaunchCooperativeKernel((void *)grid_sum, dim3(resident + 1), dim3(64), args, 0, 0),
           cudaErrorCooperativeLaunchTooLarge);
    CHECK(cudaLaunchCooperativeKernel((void *)grid_sum, dim3(resident), dim3(64), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    int sum = 0;
    CHECK(cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost));
    REQUIRE(sum == resident * (resident - 1) / 2);
    CHECK(cudaFree(slots));
    CHECK(cudaFree(total));
    return true;
}

static bool peer() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    REQUIRE(count == 2);
    if (count < 2) return false;
    const int n = 1 << 16;
    static int host[n], back[n];
    for (int i = 0; i < n; i++) host[i] = i * 3;
    int *on0 = nullptr, *on1 = nullptr;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&on0, n * sizeof(int)));
    CHECK(cudaMemcpy(on0, host, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&on1, n * sizeof(int)));
    CHECK(cudaMemset(on1, 0, n * sizeof(int)));
    int can = -1;
    CHECK(cudaDeviceCanAccessPeer(&can, 1, 0));
    printf("device 1 can access device 0: %d\n", can);
    if (!can) EXPECT(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    // An oversized copy is refused before anything is allocated.
    EXPECT(cudaMemcpy(on1, on0, (size_t)1 << 40, cudaMemcpyDefault), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyPeer(on1, 1, on0, 0, (size_t)1 << 40), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyPeer(on1, 0, on0, 1, 64), cudaErrorInvalidValue);
    // Device 0 to 1 with cudaMemcpyDefault, then a kernel on device 1.
    CHECK(cudaMemcpy(on1, on0, n * sizeof(int), cudaMemcpyDefault));
    add_one<<<n / 256, 256>>>(on1, n);
    CHECK(cudaGetLastError());
    // Back to device 0 with cudaMemcpyPeer, then with cudaMemcpyPeerAsync on a stream of 1.
    CHECK(cudaMemcpyPeer(on0, 0, on1, 1, n * sizeof(int)));
    CHECK(cudaMemcpy(back, on0, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool first = back[0] == 1 && back[n - 1] == (n - 1) * 3 + 1;
    REQUIRE(first);
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    add_one<<<n / 256, 256, 0, stream>>>(on1, n);
    CHECK(cudaMemcpyPeerAsync(on0, 0, on1, 1, n * sizeof(int), stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(back, on0, n * sizeof(int), cudaMemcpyDeviceToHost));
    REQUIRE(back[7] == 7 * 3 + 2 && back[n - 1] == (n - 1) * 3 + 2);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(on0));
    CHECK(cudaFree(on1));
    return true;
}

static bool reset() {
    int *dev = nullptr;
    CHECK(cudaMalloc(&dev, 64 * sizeof(int)));
    write_past_end<<<1, 32>>>(dev, 1 << 20);
    EXPECT(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT(cudaMemcpy(dev, dev, 4, cudaMemcpyDeviceToDevice), cudaErrorIllegalAddress);
    EXPECT(cudaDeviceReset(), cudaSuccess);
    EXPECT(cudaGetLastError(), cudaSuccess);
    // The allocation made before the reset is gone.
    cudaPointerAttributes attributes;
    CHECK(cudaPointerGetAttributes(&attributes, dev));
    REQUIRE(attributes.type == cudaMemoryTypeUnregistered);
    // The device works again: copies, launches, synchronization.
    int host[64];
    for (int i = 0; i < 64; i++) host[i] = i;
    int *fresh = nullptr;
    CHECK(cudaMalloc(&fresh, sizeof host));
    CHECK(cudaMemcpy(fresh, host, sizeof host, cudaMemcpyHostToDevice));
    add_one<<<1, 64>>>(fresh, 64);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host, fresh, sizeof host, cudaMemcpyDeviceToHost));
    REQUIRE(host[0] == 1 && host[63] == 64);
    CHECK(cudaFree(fresh));
    return true;
}

static bool freed_pointer() {
    int *dev = nullptr;
    CHECK(cudaMalloc(&dev, 256));
    cudaPointerAttributes attributes;
    CHECK(cudaPointerGetAttributes(&attributes, dev));
    REQUIRE(attributes.type == cudaMemoryTypeDevice);
    CHECK(cudaFree(dev));
    CHECK(cudaPointerGetAttributes(&attributes, dev));
    printf("freed pointer type: %d\n", (int)attributes.type);
    REQUIRE(attributes.type == cudaMemoryTypeUnregistered);
    REQUIRE(attributes.devicePointer == nullptr);
    return true;
}

static bool capture() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(stream, &status));
    REQUIRE(status == cudaStreamCaptureStatusActive);
    CHECK(cudaStreamDestroy(stream));
    // Streams made afterwards (one may well get the destroyed stream's address) capture nothing
    // and run their work.
    int *dev = nullptr;
    CHECK(cudaMalloc(&dev, 64 * sizeof(int)));
    CHECK(cudaMemset(dev, 0, 64 * sizeof(int)));
    cudaStream_t streams[8];
    for (int s = 0; s < 8; s++) {
        CHECK(cudaStreamCreate(&streams[s]));
        CHECK(cudaStreamIsCapturing(streams[s], &status));
        if (status != cudaStreamCaptureStatusNone) {
            printf("stream %d (%p) is capturing\n", s, (void *)streams[s]);
            all_ok = false;
        }
        add_one<<<1, 64, 0, streams[s]>>>(dev, 64);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(streams[s]));
    }
    int host[64];
    CHECK(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    REQUIRE(host[0] == 8 && host[63] == 8);
    for (int s = 0; s < 8; s++) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFree(dev));
    return true;
}

static bool properties() {
    EXPECT(cudaProfilerStart(), cudaSuccess);
    EXPECT(cudaProfilerStop(), cudaSuccess);
    int least = 1, greatest = 1;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    printf("stream priorities: least %d, greatest %d\n", least, greatest);
    REQUIRE(greatest <= least);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("memPitch %zu, asyncEngineCount %d, streamPrioritiesSupported %d\n", prop.memPitch,
           prop.asyncEngineCount, prop.streamPrioritiesSupported);
    REQUIRE(prop.memPitch == 2147483647);
    REQUIRE((prop.streamPrioritiesSupported != 0) == (greatest < least));
    int overlap = 0, max_pitch = 0;
    CHECK(cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, 0));
    CHECK(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, 0));
    REQUIRE(overlap == 1);
    REQUIRE(max_pitch == 2147483647);
    int value = 0;
    EXPECT(cudaDeviceGetAttribute(&value, (cudaDeviceAttr)100000, 0), cudaErrorInvalidValue);
    return true;
}

// cudaMemcpyToArray is deprecated, and exercised on purpose.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static bool textures() {
    cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
    cudaChannelFormatDesc mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t array = nullptr, plain = nullptr, gone = nullptr;
    EXPECT(cudaMallocArray(&array, &mixed, 8, 8), cudaErrorInvalidChannelDescriptor);
    EXPECT(cudaMallocArray(&array, &f32, 0, 8), cudaErrorInvalidValue);
    // A cubemap's faces are square: 8 x 4 is refused; 8 x 8 x 6 is a valid cubemap.
    EXPECT(cudaMalloc3DArray(&array, &f32, make_cudaExtent(8, 4, 6), cudaArrayCubemap),
           cudaErrorInvalidValue);
    CHECK(cudaMalloc3DArray(&array, &f32, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
    CHECK(cudaFreeArray(array));
    CHECK(cudaMallocArray(&array, &f32, 8, 4, cudaArraySurfaceLoadStore));
    CHECK(cudaMallocArray(&plain, &f32, 8, 4));
    float host[64] = {};
    EXPECT(cudaMemcpy2DToArray(array, 4, 0, host, 32, 32, 4, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2DFromArray(host, 32, array, 0, 2, 32, 3, cudaMemcpyDeviceToHost),
           cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToArray(array, 0, 1, host, 4 * 32, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToArray(array, 0, 0, host, 4 * 32, cudaMemcpyHostToDevice), cudaSuccess);
    cudaChannelFormatDesc got;
    EXPECT(cudaGetChannelDesc(nullptr, array), cudaErrorInvalidValue);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = plain;
    cudaSurfaceObject_t surface = 0;
    EXPECT(cudaCreateSurfaceObject(&surface, &res), cudaErrorInvalidValue);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t texture = 0;
    CHECK(cudaCreateTextureObject(&texture, &res, &td, nullptr));
    CHECK(cudaDestroyTextureObject(texture));
    EXPECT(cudaGetTextureObjectResourceDesc(&res, texture), cudaErrorInvalidValue);
    CHECK(cudaMallocArray(&gone, &f32, 4, 0));
    CHECK(cudaFreeArray(gone));
    EXPECT(cudaGetChannelDesc(&got, gone), cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2DToArray(gone, 0, 0, host, 16, 16, 1, cudaMemcpyHostToDevice),
           cudaErrorInvalidValue);
    res.res.array.array = gone;
    EXPECT(cudaCreateTextureObject(&texture, &res, &td, nullptr), cudaErrorInvalidValue);
    EXPECT(cudaFreeArray(gone), cudaErrorInvalidValue);
    CHECK(cudaFreeArray(array));
    CHECK(cudaFreeArray(plain));
    return true;
}
#pragma GCC diagnostic pop

// Flags, enumerators, counts and handles no CUDA call accepts, and NULL where CUDA's answer
// differs by function.
static bool flags() {
    cudaStream_t stream;
    cudaEvent_t event;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&event));
    EXPECT(cudaStreamCreateWithFlags(&stream, 0x100), cudaErrorInvalidValue);
    EXPECT(cudaStreamCreateWithPriority(&stream, 0x100, 0), cudaErrorInvalidValue);
    EXPECT(cudaStreamCreateWithFlags(nullptr, cudaStreamNonBlocking), cudaErrorInvalidValue);
    EXPECT(cudaEventCreateWithFlags(&event, 0x100), cudaErrorInvalidValue);
    EXPECT(cudaStreamWaitEvent(stream, event, 0x100), cudaErrorInvalidValue);
    int *managed = nullptr;
    EXPECT(cudaMallocManaged(&managed, 64, 0x100), cudaErrorInvalidValue);
    static char page[4096];
    EXPECT(cudaHostRegister(page, sizeof page, 0x100), cudaErrorInvalidValue);
    EXPECT(cudaHostUnregister(nullptr), cudaErrorInvalidValue);
    EXPECT(cudaFreeHost(nullptr), cudaSuccess);
    EXPECT(cudaFuncSetAttribute((const void *)add_one, (cudaFuncAttribute)0, 1),
           cudaErrorInvalidValue);  // maxThreadsPerBlock is read-only
    EXPECT(cudaFuncSetAttribute((const void *)add_one, cudaFuncAttributePreferredSharedMemoryCarveout,
                                101),
           cudaErrorInvalidValue);
    EXPECT(cudaFuncSetAttribute((const void *)add_one, cudaFuncAttributePreferredSharedMemoryCarveout,
                                50),
           cudaSuccess);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaGraphCreate(&graph, 0));
    EXPECT(cudaGraphInstantiateWithFlags(&exec, graph, 0x100), cudaErrorInvalidValue);
    // A stream handle that is no stream at all, ending a capture.
    static char not_a_stream[64];
    EXPECT(cudaStreamEndCapture((cudaStream_t)not_a_stream, &graph),
           cudaErrorInvalidResourceHandle);
    EXPECT(cudaStreamEndCapture(stream, &graph), cudaErrorIllegalState);
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaEventDestroy(event));
    return true;
}

int main(int argc, char **argv) {
    struct Case {
        const char *name;
        bool (*run)();
    } cases[] = {
        {"copy-unmapped", copy_unmapped}, {"host-register", host_register},
        {"pitch", pitch},                 {"null-args", null_args},
        {"null-outputs", null_outputs},   {"cooperative", cooperative},
        {"peer", peer},                   {"reset", reset},
        {"freed-pointer", freed_pointer}, {"capture", capture},
        {"properties", properties},       {"textures", textures},
        {"flags", flags},
    };
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE\n", argv[0]);
        return 2;
    }
    for (const Case &c : cases) {
        if (strcmp(argv[1], c.name) == 0) {
            bool finished = c.run();
            bool ok = finished && all_ok;
            printf("%s: %s\n", c.name, ok ? "ok" : "FAILED");
            return ok ? 0 : 1;
        }
    }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
