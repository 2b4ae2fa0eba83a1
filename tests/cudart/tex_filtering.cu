// Texture filtering and surfaces beyond tex_basic: 1D and 2D linear filtering with normalised
// coordinates under wrap, mirror, clamp and border (a non-zero border colour), 8-bit texels read
// as normalised floats, tex1Dfetch of int2 on linear memory, point sampling of pitched 2D memory,
// a surface written by one kernel and read by another, the deprecated linear copies
// (cudaMemcpyToArray/FromArray), the async 2D copy, and the queries cudaGetChannelDesc and
// cudaGetTextureObject{Resource,Texture}Desc. Every result is printed in full (hex floats) for
// comparison with a GPU, and checked against a host model of the hardware: texel indices under
// the address mode, linear weights in 1/256 steps, 2D corner weights rounded to 1/256.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

// cudaMemcpyToArray and cudaMemcpyFromArray are deprecated, and exercised on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

const int W1 = 10;        // the 1D array
const int W2 = 7, H2 = 5; // the 2D array
const int N = 48;         // samples per case

__global__ void sample1D(cudaTextureObject_t t, const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, x[i]);
}

__global__ void sample2D(cudaTextureObject_t t, const float2 *xy, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, xy[i].x, xy[i].y);
}

__global__ void fetchInt2(cudaTextureObject_t t, int2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int2>(t, i - 1);
}

__global__ void writeSurface(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    surf2Dwrite(x * 100 + y - 7, s, x * (int)sizeof(int), y);
}

__global__ void readSurface(cudaSurfaceObject_t s, int *out, int w) {
    int x = threadIdx.x, y = blockIdx.x;
    int v;
    surf2Dread(&v, s, x * (int)sizeof(int), y);
    out[y * w + x] = v * 3;
}

// Texel index i of n texels under mode: -1 for the border.
static int address(int i, int n, int mode) {
    switch (mode) {
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeMirror: {
        int j = ((i % (2 * n)) + 2 * n) % (2 * n);
        return j < n ? j : 2 * n - 1 - j;
    }
    case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

// The lower texel and the upper one's weight in 1/256 steps (halves up).
static void footprint(float u, int *base, int *alpha) {
    long fixed = (long)floor(((double)u - 0.5) * 256.0 + 0.5);
    *base = (int)(fixed >> 8);
    *alpha = (int)(fixed & 255);
}

// The four bilinear weights in 1/256 steps, (x0,y0) (x1,y0) (x0,y1) (x1,y1), as an H200 forms
// them: the (x1,y1) corner rounded to the nearest 1/256 (halves up), the others what is left.
static void bilinear(int a, int b, int w[4]) {
    int w11 = (a * b + 128) >> 8;
    w[0] = 256 + w11 - a - b;
    w[1] = a - w11;
    w[2] = b - w11;
    w[3] = w11;
}

// A 1D array is a 2D texture of height 1 to the hardware, sampled at row 0: with a border on
// the second axis, half of each texel comes from row -1, the border.
static float model1D(const float *texels, float x, int mode, float border) {
    int i, a;
    footprint(x * W1, &i, &a);
    float s = 0;
    if (mode == cudaAddressModeBorder) {
        int w[4];
        bilinear(a, 128, w);
        for (int k = 0; k < 4; k++) {
            int at = address(i + (k & 1), W1, mode);
            s += w[k] / 256.0f * ((k >> 1) == 0 || at < 0 ? border : texels[at]);
        }
        return s;
    }
    for (int k = 0; k < 2; k++) {
        int at = address(i + k, W1, mode);
        s += (k ? a : 256 - a) / 256.0f * (at < 0 ? border : texels[at]);
    }
    return s;
}

static float model2D(const float *texels, float x, float y, int mx, int my, float border) {
    int i, j, a, b, w[4];
    footprint(x * W2, &i, &a);
    footprint(y * H2, &j, &b);
    bilinear(a, b, w);
    float s = 0;
    for (int k = 0; k < 4; k++) {
        int ax = address(i + (k & 1), W2, mx), ay = address(j + (k >> 1), H2, my);
        s += w[k] / 256.0f * (ax < 0 || ay < 0 ? border : texels[ay * W2 + ax]);
    }
    return s;
}

static cudaTextureObject_t arrayTexture(cudaArray_t a, int mx, int my, bool linear, bool norm,
                                        bool normalizedRead, float border) {
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = (cudaTextureAddressMode)mx;
    td.addressMode[1] = (cudaTextureAddressMode)my;
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = normalizedRead ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
    td.normalizedCoords = norm;
    for (int c = 0; c < 4; c++) td.borderColor[c] = border;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &res, &td, nullptr) != cudaSuccess) return 0;
    return t;
}

// Prints `out` in full and counts the samples that differ from `want`.
static int report(const char *name, const float *out, const float *want, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (out[i] != want[i] && bad++ < 4) printf("%s[%d]: %a, model %a\n", name, i, out[i], want[i]);
    printf("%s:", name);
    for (int i = 0; i < n; i++) printf("%s%a", i % 8 ? " " : "\n  ", out[i]);
    printf("\n");
    return bad;
}

int main() {
    int bad = 0;
    const char *modeName[] = {"wrap", "clamp", "mirror", "border"};
    float *dIn, *dOut;
    CHECK(cudaMalloc(&dIn, N * sizeof(float2)));
    CHECK(cudaMalloc(&dOut, N * sizeof(float)));

    // 1D float array, filled with the deprecated linear copy and read back the same way.
    float line[W1];
    for (int i = 0; i < W1; i++) line[i] = (float)((i * 7) % 11) - 3.25f;
    cudaChannelFormatDesc f32 = cudaCreateChannelDesc<float>();
    cudaArray_t a1;
    CHECK(cudaMallocArray(&a1, &f32, W1, 0));
    CHECK(cudaMemcpyToArray(a1, 0, 0, line, sizeof line, cudaMemcpyHostToDevice));
    float lineBack[W1];
    CHECK(cudaMemcpyFromArray(lineBack, a1, 0, 0, sizeof lineBack, cudaMemcpyDeviceToHost));
    bad += memcmp(line, lineBack, sizeof line) != 0;
    printf("1D array copied back %s\n", memcmp(line, lineBack, sizeof line) ? "WRONG" : "as written");

    float xs[N];
    for (int i = 0; i < N; i++) xs[i] = -1.3f + i * 0.0731f;
    CHECK(cudaMemcpy(dIn, xs, sizeof xs, cudaMemcpyHostToDevice));
    for (int mode = 0; mode < 4; mode++) {
        cudaTextureObject_t t = arrayTexture(a1, mode, mode, true, true, false, 2.5f);
        if (!t) { printf("1D %s: cudaCreateTextureObject failed\n", modeName[mode]); return 1; }
        sample1D<<<1, N>>>(t, dIn, dOut, N);
        float out[N], want[N];
        CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) want[i] = model1D(line, xs[i], mode, 2.5f);
        char name[32];
        snprintf(name, sizeof name, "linear1D_norm_%s", modeName[mode]);
        bad += report(name, out, want, N);
        CHECK(cudaDestroyTextureObject(t));
    }

    // 2D float array, filled by an asynchronous 2D copy on a stream.
    float image[W2 * H2];
    for (int i = 0; i < W2 * H2; i++) image[i] = (float)((i * 13) % 17) * 0.75f - 4.0f;
    cudaArray_t a2;
    CHECK(cudaMallocArray(&a2, &f32, W2, H2));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMemcpy2DToArrayAsync(a2, 0, 0, image, W2 * sizeof(float), W2 * sizeof(float), H2,
                                   cudaMemcpyHostToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
    float2 xy[N];
    for (int i = 0; i < N; i++) xy[i] = make_float2(-0.6f + i * 0.0517f, 1.4f - i * 0.0433f);
    CHECK(cudaMemcpy(dIn, xy, sizeof xy, cudaMemcpyHostToDevice));
    int modes2D[][2] = {{cudaAddressModeMirror, cudaAddressModeWrap},
                        {cudaAddressModeBorder, cudaAddressModeClamp},
                        {cudaAddressModeWrap, cudaAddressModeMirror}};
    for (auto &m : modes2D) {
        cudaTextureObject_t t = arrayTexture(a2, m[0], m[1], true, true, false, -1.5f);
        if (!t) { printf("2D: cudaCreateTextureObject failed\n"); return 1; }
        sample2D<<<1, N>>>(t, (const float2 *)dIn, dOut, N);
        float out[N], want[N];
        CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) want[i] = model2D(image, xy[i].x, xy[i].y, m[0], m[1], -1.5f);
        char name[40];
        snprintf(name, sizeof name, "linear2D_norm_%s_%s", modeName[m[0]], modeName[m[1]]);
        bad += report(name, out, want, N);
        CHECK(cudaDestroyTextureObject(t));
    }

    // 8-bit texels read as normalised floats, filtered.
    unsigned char bytes[W1];
    for (int i = 0; i < W1; i++) bytes[i] = (unsigned char)((i * 53 + 7) % 256);
    cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t a8;
    CHECK(cudaMallocArray(&a8, &u8, W1, 0));
    CHECK(cudaMemcpy2DToArray(a8, 0, 0, bytes, W1, W1, 1, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc got;
    CHECK(cudaGetChannelDesc(&got, a8));
    printf("channel desc of the 8-bit array: %d %d %d %d kind %d\n", got.x, got.y, got.z, got.w,
           (int)got.f);
    bad += !(got.x == 8 && got.y == 0 && got.f == cudaChannelFormatKindUnsigned);
    {
        cudaTextureObject_t t = arrayTexture(a8, cudaAddressModeClamp, cudaAddressModeClamp, true,
                                             true, true, 0.0f);
        if (!t) { printf("8-bit: cudaCreateTextureObject failed\n"); return 1; }
        CHECK(cudaMemcpy(dIn, xs, sizeof xs, cudaMemcpyHostToDevice));
        sample1D<<<1, N>>>(t, dIn, dOut, N);
        float out[N], want[N];
        CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
        // An H200 filters 8-bit texels as 16-bit integers: widened (v * 257), weighed in 1/256
        // steps, rounded to the nearest 16-bit step and returned over 65535.
        for (int i = 0; i < N; i++) {
            int at, a;
            footprint(xs[i] * W1, &at, &a);
            int lo = address(at, W1, cudaAddressModeClamp), hi = address(at + 1, W1, cudaAddressModeClamp);
            long sum = (long)(256 - a) * bytes[lo] * 257 + (long)a * bytes[hi] * 257;
            want[i] = (float)((sum + 128) >> 8) / 65535.0f;
        }
        bad += report("linear1D_unorm8_clamp", out, want, N);
        cudaTextureDesc td;
        CHECK(cudaGetTextureObjectTextureDesc(&td, t));
        printf("texture desc: address %d %d, filter %d, read %d, normalized %d\n",
               (int)td.addressMode[0], (int)td.addressMode[1], (int)td.filterMode,
               (int)td.readMode, td.normalizedCoords);
        bad += !(td.filterMode == cudaFilterModeLinear && td.readMode == cudaReadModeNormalizedFloat &&
                 td.normalizedCoords == 1);
        CHECK(cudaDestroyTextureObject(t));
    }

    // tex1Dfetch of int2 on linear memory (one element before and after: zeros).
    const int NL = 12;
    int2 pairs[NL];
    for (int i = 0; i < NL; i++) pairs[i] = make_int2(i * i - 20, 1000 - 37 * i);
    int2 *dPairs, *dFetched;
    CHECK(cudaMalloc(&dPairs, sizeof pairs));
    CHECK(cudaMalloc(&dFetched, (NL + 2) * sizeof(int2)));
    CHECK(cudaMemcpy(dPairs, pairs, sizeof pairs, cudaMemcpyHostToDevice));
    {
        cudaResourceDesc res;
        memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeLinear;
        res.res.linear.devPtr = dPairs;
        res.res.linear.desc = cudaCreateChannelDesc<int2>();
        res.res.linear.sizeInBytes = sizeof pairs;
        cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        fetchInt2<<<1, NL + 2>>>(t, dFetched, NL + 2);
        int2 fetched[NL + 2];
        CHECK(cudaMemcpy(fetched, dFetched, sizeof fetched, cudaMemcpyDeviceToHost));
        printf("fetch_int2:");
        for (int i = 0; i < NL + 2; i++) {
            int k = i - 1;
            int2 want = k >= 0 && k < NL ? pairs[k] : make_int2(0, 0);
            bad += fetched[i].x != want.x || fetched[i].y != want.y;
            printf(" (%d,%d)", fetched[i].x, fetched[i].y);
        }
        printf("\n");
        cudaResourceDesc back;
        CHECK(cudaGetTextureObjectResourceDesc(&back, t));
        printf("resource desc: type %d, same pointer %d, size %zu, channel %d %d %d\n",
               (int)back.resType, back.res.linear.devPtr == dPairs, back.res.linear.sizeInBytes,
               back.res.linear.desc.x, back.res.linear.desc.y, (int)back.res.linear.desc.f);
        bad += !(back.resType == cudaResourceTypeLinear && back.res.linear.devPtr == dPairs &&
                 back.res.linear.sizeInBytes == sizeof pairs);
        CHECK(cudaDestroyTextureObject(t));
    }

    // Point sampling of pitched 2D memory, unnormalised, clamped.
    {
        float *pitched;
        size_t pitch;
        CHECK(cudaMallocPitch(&pitched, &pitch, W2 * sizeof(float), H2));
        CHECK(cudaMemcpy2D(pitched, pitch, image, W2 * sizeof(float), W2 * sizeof(float), H2,
                           cudaMemcpyHostToDevice));
        cudaResourceDesc res;
        memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypePitch2D;
        res.res.pitch2D.devPtr = pitched;
        res.res.pitch2D.desc = f32;
        res.res.pitch2D.width = W2;
        res.res.pitch2D.height = H2;
        res.res.pitch2D.pitchInBytes = pitch;
        cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        float2 at[N];
        for (int i = 0; i < N; i++) at[i] = make_float2(-1.2f + i * 0.21f, 6.1f - i * 0.17f);
        CHECK(cudaMemcpy(dIn, at, sizeof at, cudaMemcpyHostToDevice));
        sample2D<<<1, N>>>(t, (const float2 *)dIn, dOut, N);
        float out[N], want[N];
        CHECK(cudaMemcpy(out, dOut, sizeof out, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            int x = address((int)floorf(at[i].x), W2, cudaAddressModeClamp);
            int y = address((int)floorf(at[i].y), H2, cudaAddressModeClamp);
            want[i] = image[y * W2 + x];
        }
        bad += report("point2D_pitch_clamp", out, want, N);
        cudaResourceDesc back;
        CHECK(cudaGetTextureObjectResourceDesc(&back, t));
        printf("pitch2D resource: type %d, %zu x %zu, same pitch %d\n", (int)back.resType,
               back.res.pitch2D.width, back.res.pitch2D.height, back.res.pitch2D.pitchInBytes == pitch);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFree(pitched));
    }

    // A surface written by one kernel, read by another, and copied out linearly.
    const int SW = 9, SH = 4;
    cudaChannelFormatDesc i32 = cudaCreateChannelDesc<int>();
    cudaArray_t as;
    CHECK(cudaMallocArray(&as, &i32, SW, SH, cudaArraySurfaceLoadStore));
    {
        cudaResourceDesc res;
        memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeArray;
        res.res.array.array = as;
        cudaSurfaceObject_t s;
        CHECK(cudaCreateSurfaceObject(&s, &res));
        writeSurface<<<SH, SW>>>(s);
        int *dRead;
        CHECK(cudaMalloc(&dRead, SW * SH * sizeof(int)));
        readSurface<<<SH, SW>>>(s, dRead, SW);
        int read[SW * SH], copied[SW * SH];
        CHECK(cudaMemcpy(read, dRead, sizeof read, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpyFromArray(copied, as, 0, 0, sizeof copied, cudaMemcpyDeviceToHost));
        for (int y = 0; y < SH; y++) {
            printf("surface row %d:", y);
            for (int x = 0; x < SW; x++) {
                int want = x * 100 + y - 7;
                bad += copied[y * SW + x] != want || read[y * SW + x] != 3 * want;
                printf(" %d/%d", copied[y * SW + x], read[y * SW + x]);
            }
            printf("\n");
        }
        cudaResourceDesc back;
        CHECK(cudaGetSurfaceObjectResourceDesc(&back, s));
        printf("surface resource: type %d, same array %d\n", (int)back.resType,
               back.res.array.array == as);
        bad += back.res.array.array != as;
        CHECK(cudaDestroySurfaceObject(s));
        CHECK(cudaFree(dRead));
    }

    // The 2D array's extent, as cudaArrayGetInfo reports it.
    {
        cudaExtent extent;
        cudaError_t e = cudaArrayGetInfo(nullptr, &extent, nullptr, a2);
        printf("cudaArrayGetInfo: %s (%zu x %zu x %zu)\n", cudaGetErrorName(e), extent.width,
               extent.height, extent.depth);
        bad += e != cudaSuccess || extent.width != W2 || extent.height != H2 || extent.depth != 0;
    }

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeArray(a1));
    CHECK(cudaFreeArray(a2));
    CHECK(cudaFreeArray(a8));
    CHECK(cudaFreeArray(as));
    CHECK(cudaFree(dIn));
    CHECK(cudaFree(dOut));
    CHECK(cudaFree(dPairs));
    CHECK(cudaFree(dFetched));
    printf(bad ? "tex_filtering: FAILED\n" : "tex_filtering: passed\n");
    return bad != 0;
}
