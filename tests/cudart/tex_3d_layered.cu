// 3D and layered CUDA arrays through cudaMalloc3DArray and cudaMemcpy3D: a 3D float texture
// sampled point-wise (clamp and wrap) and trilinearly (at coordinates whose weights are exact
// in any precision), a 2D layered and a 1D layered texture, cudaArrayGetInfo, and a window of
// the 3D array copied back with cudaMemcpy3D (array to device memory to host). Each result is
// checked against the host and printed in full, for comparison with a GPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T result, const char *func, const char *file, int line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}

const int W = 6, H = 5, D = 4;        // the 3D array
const int LW = 8, LH = 4, LAYERS = 3; // the layered arrays

template <typename T>
__global__ void sample3D(cudaTextureObject_t t, const float4 *at, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<T>(t, at[i].x, at[i].y, at[i].z);
}

template <typename T>
__global__ void sample2DLayered(cudaTextureObject_t t, const float4 *at, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<T>(t, at[i].x, at[i].y, (int)at[i].w);
}

template <typename T>
__global__ void sample1DLayered(cudaTextureObject_t t, const float4 *at, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1DLayered<T>(t, at[i].x, (int)at[i].w);
}

static float value3D(int x, int y, int z) { return (float)(x + 10 * y + 100 * z); }
static float valueLayered(int x, int y, int layer) { return (float)(1000 * layer + 8 * y + x); }

static int wrapOrClamp(int i, int n, bool wrap) {
    if (wrap) return ((i % n) + n) % n;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// Point sampling: the texel under (x, y, z), clamped or wrapped (unnormalised coordinates).
static float point3D(float x, float y, float z, bool wrap) {
    return value3D(wrapOrClamp((int)floorf(x), W, wrap), wrapOrClamp((int)floorf(y), H, wrap),
                   wrapOrClamp((int)floorf(z), D, wrap));
}

// Trilinear filtering, clamped; the coordinates used make every weight 0, 1/2 or 1.
static float linear3D(float x, float y, float z) {
    float fx = x - 0.5f, fy = y - 0.5f, fz = z - 0.5f;
    int i = (int)floorf(fx), j = (int)floorf(fy), k = (int)floorf(fz);
    float a = fx - i, b = fy - j, c = fz - k;
    float sum = 0;
    for (int corner = 0; corner < 8; corner++) {
        int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
        float w = (dx ? a : 1 - a) * (dy ? b : 1 - b) * (dz ? c : 1 - c);
        sum += w * value3D(wrapOrClamp(i + dx, W, false), wrapOrClamp(j + dy, H, false),
                           wrapOrClamp(k + dz, D, false));
    }
    return sum;
}

static cudaTextureObject_t textureOf(cudaArray_t array, cudaTextureAddressMode mode,
                                     cudaTextureFilterMode filter) {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc tex = {};
    for (int axis = 0; axis < 3; axis++) tex.addressMode[axis] = mode;
    tex.filterMode = filter;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = mode == cudaAddressModeWrap;
    cudaTextureObject_t object;
    checkCudaErrors(cudaCreateTextureObject(&object, &res, &tex, NULL));
    return object;
}

// Runs `kernel` over `count` coordinates and checks each result against `want`.
template <typename Kernel>
static int run(const char *name, Kernel kernel, cudaTextureObject_t object, const float4 *at,
               const float *want, int count) {
    float4 *dAt;
    float *dOut, out[64];
    checkCudaErrors(cudaMalloc(&dAt, count * sizeof(float4)));
    checkCudaErrors(cudaMalloc(&dOut, count * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dAt, at, count * sizeof(float4), cudaMemcpyHostToDevice));
    kernel<<<1, 64>>>(object, dAt, dOut, count);
    checkCudaErrors(cudaGetLastError());
    checkCudaErrors(cudaMemcpy(out, dOut, count * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    double sum = 0;
    for (int i = 0; i < count; i++) {
        sum += out[i];
        if (out[i] != want[i] && bad++ < 5)
            printf("%s[%d] at (%g, %g, %g, %g): %g, host %g\n", name, i, at[i].x, at[i].y, at[i].z,
                   at[i].w, out[i], want[i]);
    }
    printf("%-20s %2d samples, sum %.3f, %s\n", name, count, sum, bad ? "WRONG" : "as the host");
    // Every sample in full (%a is exact), so a comparison with a GPU compares values.
    for (int i = 0; i < count; i++) printf("%s%a%s", i % 8 ? " " : "  ", out[i], i % 8 == 7 ? "\n" : "");
    if (count % 8) printf("\n");
    checkCudaErrors(cudaFree(dAt));
    checkCudaErrors(cudaFree(dOut));
    return bad;
}

int main() {
    int bad = 0;
    cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();

    // The 3D array, filled from a host volume through cudaMemcpy3D.
    static float volume[D][H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) volume[z][y][x] = value3D(x, y, z);
    cudaArray_t array3D;
    checkCudaErrors(cudaMalloc3DArray(&array3D, &channel, make_cudaExtent(W, H, D), 0));
    cudaMemcpy3DParms toArray = {};
    toArray.srcPtr = make_cudaPitchedPtr(volume, W * sizeof(float), W, H);
    toArray.dstArray = array3D;
    toArray.extent = make_cudaExtent(W, H, D);
    toArray.kind = cudaMemcpyHostToDevice;
    checkCudaErrors(cudaMemcpy3D(&toArray));

    cudaChannelFormatDesc got;
    cudaExtent extent;
    unsigned int flags = 99;
    checkCudaErrors(cudaArrayGetInfo(&got, &extent, &flags, array3D));
    printf("3D array: %zu x %zu x %zu, %d-bit float channel, flags %u\n", extent.width,
           extent.height, extent.depth, got.x, flags);
    bad += !(extent.width == W && extent.height == H && extent.depth == D && got.x == 32 &&
             got.f == cudaChannelFormatKindFloat && flags == 0);

    // Point sampling, clamped, inside and outside the volume.
    float4 at[64];
    float want[64];
    int n = 0;
    for (int i = 0; i < 40; i++) {
        float x = -1.5f + 0.37f * i, y = 0.25f * (i % 23) - 0.7f, z = 0.3f * (i % 17) - 0.4f;
        at[n] = make_float4(x, y, z, 0);
        want[n++] = point3D(x, y, z, false);
    }
    cudaTextureObject_t clampPoint = textureOf(array3D, cudaAddressModeClamp, cudaFilterModePoint);
    bad += run("3D point clamp", sample3D<float>, clampPoint, at, want, n);

    // Point sampling, normalised coordinates, wrapped.
    n = 0;
    for (int i = 0; i < 40; i++) {
        float u = -0.9f + 0.071f * i, v = 0.1337f * i - 1.1f, w = 0.093f * i + 0.02f;
        at[n] = make_float4(u, v, w, 0);
        want[n++] = point3D(u * W, v * H, w * D, true);
    }
    cudaTextureObject_t wrapPoint = textureOf(array3D, cudaAddressModeWrap, cudaFilterModePoint);
    bad += run("3D point wrap", sample3D<float>, wrapPoint, at, want, n);

    // Trilinear filtering at texel centres and half-way between them (weights 0, 1/2, 1).
    n = 0;
    for (int i = 0; i < 48; i++) {
        float x = 0.5f * (i % 14), y = 0.5f * ((i / 2) % 11), z = 0.5f * ((i / 3) % 9);
        at[n] = make_float4(x, y, z, 0);
        want[n++] = linear3D(x, y, z);
    }
    cudaTextureObject_t clampLinear =
        textureOf(array3D, cudaAddressModeClamp, cudaFilterModeLinear);
    bad += run("3D linear clamp", sample3D<float>, clampLinear, at, want, n);

    // A 2D layered array.
    static float layers2D[LAYERS][LH][LW];
    for (int l = 0; l < LAYERS; l++)
        for (int y = 0; y < LH; y++)
            for (int x = 0; x < LW; x++) layers2D[l][y][x] = valueLayered(x, y, l);
    cudaArray_t layered2D;
    checkCudaErrors(cudaMalloc3DArray(&layered2D, &channel, make_cudaExtent(LW, LH, LAYERS),
                                      cudaArrayLayered));
    cudaMemcpy3DParms toLayers = {};
    toLayers.srcPtr = make_cudaPitchedPtr(layers2D, LW * sizeof(float), LW, LH);
    toLayers.dstArray = layered2D;
    toLayers.extent = make_cudaExtent(LW, LH, LAYERS);
    toLayers.kind = cudaMemcpyHostToDevice;
    checkCudaErrors(cudaMemcpy3D(&toLayers));
    checkCudaErrors(cudaArrayGetInfo(NULL, &extent, &flags, layered2D));
    printf("2D layered array: %zu x %zu, %zu layers, flags %u\n", extent.width, extent.height,
           extent.depth, flags);
    bad += !(extent.depth == LAYERS && flags == cudaArrayLayered);
    n = 0;
    for (int i = 0; i < 36; i++) {
        float x = 0.45f * i - 1.0f, y = 0.3f * (i % 19) - 0.5f;
        int layer = i % LAYERS;
        at[n] = make_float4(x, y, 0, (float)layer);
        want[n++] = valueLayered(wrapOrClamp((int)floorf(x), LW, false),
                                 wrapOrClamp((int)floorf(y), LH, false), layer);
    }
    cudaTextureObject_t layeredPoint =
        textureOf(layered2D, cudaAddressModeClamp, cudaFilterModePoint);
    bad += run("2D layered point", sample2DLayered<float>, layeredPoint, at, want, n);

    // A 1D layered array (height 0), filled one layer row at a time by one 3D copy.
    static float layers1D[LAYERS][LW];
    for (int l = 0; l < LAYERS; l++)
        for (int x = 0; x < LW; x++) layers1D[l][x] = valueLayered(x, 0, l);
    cudaArray_t layered1D;
    checkCudaErrors(cudaMalloc3DArray(&layered1D, &channel, make_cudaExtent(LW, 0, LAYERS),
                                      cudaArrayLayered));
    cudaMemcpy3DParms toRows = {};
    toRows.srcPtr = make_cudaPitchedPtr(layers1D, LW * sizeof(float), LW, 1);
    toRows.dstArray = layered1D;
    toRows.extent = make_cudaExtent(LW, 1, LAYERS);
    toRows.kind = cudaMemcpyHostToDevice;
    checkCudaErrors(cudaMemcpy3D(&toRows));
    n = 0;
    for (int i = 0; i < 30; i++) {
        float x = 0.61f * i - 2.0f;
        int layer = (i * 7) % LAYERS;
        at[n] = make_float4(x, 0, 0, (float)layer);
        want[n++] = valueLayered(wrapOrClamp((int)floorf(x), LW, false), 0, layer);
    }
    cudaTextureObject_t rowsPoint = textureOf(layered1D, cudaAddressModeClamp, cudaFilterModePoint);
    bad += run("1D layered point", sample1DLayered<float>, rowsPoint, at, want, n);

    // A window of the 3D array back out: array to pitched device memory, then to the host.
    const int WX = 3, WY = 2, WZ = 2;
    cudaPitchedPtr window;
    checkCudaErrors(cudaMalloc3D(&window, make_cudaExtent(WX * sizeof(float), WY, WZ)));
    cudaMemcpy3DParms out = {};
    out.srcArray = array3D;
    out.srcPos = make_cudaPos(2, 1, 1);
    out.dstPtr = window;
    out.extent = make_cudaExtent(WX, WY, WZ);
    out.kind = cudaMemcpyDeviceToDevice;
    checkCudaErrors(cudaMemcpy3D(&out));
    float back[WZ][WY][WX];
    cudaMemcpy3DParms down = {};
    down.srcPtr = window;
    down.dstPtr = make_cudaPitchedPtr(back, WX * sizeof(float), WX, WY);
    down.extent = make_cudaExtent(WX * sizeof(float), WY, WZ);
    down.kind = cudaMemcpyDeviceToHost;
    checkCudaErrors(cudaMemcpy3D(&down));
    int windowBad = 0;
    for (int z = 0; z < WZ; z++)
        for (int y = 0; y < WY; y++)
            for (int x = 0; x < WX; x++) windowBad += back[z][y][x] != value3D(2 + x, 1 + y, 1 + z);
    printf("window (2,1,1) + 3x2x2 copied back: first %g, last %g, %s\n", back[0][0][0],
           back[WZ - 1][WY - 1][WX - 1], windowBad ? "WRONG" : "as the host");
    for (int z = 0; z < WZ; z++)
        for (int y = 0; y < WY; y++)
            printf("  window z=%d y=%d: %a %a %a\n", z, y, back[z][y][0], back[z][y][1], back[z][y][2]);
    bad += windowBad;

    cudaTextureObject_t objects[] = {clampPoint, wrapPoint, clampLinear, layeredPoint, rowsPoint};
    for (auto object : objects) checkCudaErrors(cudaDestroyTextureObject(object));
    checkCudaErrors(cudaFree(window.ptr));
    checkCudaErrors(cudaFreeArray(array3D));
    checkCudaErrors(cudaFreeArray(layered2D));
    checkCudaErrors(cudaFreeArray(layered1D));
    printf(bad ? "tex_3d_layered: FAILED\n" : "tex_3d_layered: passed\n");
    return bad ? 1 : 0;
}
