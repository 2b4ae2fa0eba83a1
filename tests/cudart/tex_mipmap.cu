// Mipmapped textures: a 16×8 float mipmapped array of a full chain of 5 levels, each level
// filled through cudaGetMipmappedArrayLevel with its own values (texel (x, y) of level l holds
// 1000 l + 10 y + x) and one level read back; tex2DLod at integer and fractional levels under
// point and linear mipmap filtering (with point and linear filtering within a level), a bias and
// level clamps, and tex2DGrad. Every sample is printed in full (hex float and %.9g) for
// comparison with a GPU, and checked against a host model: the level of detail plus the bias,
// clamped to the level clamps and the levels; the nearest level (point) or the two around it
// blended by the fraction truncated to 1/256 steps (linear; measured on an H200); within a level
// the texel under clamp, or bilinear weights in 1/256 steps as tex_filtering checks them. On an
// H200 the model misses 12 samples: 8 trilinear blends (bilinear within levels, linear between)
// and levels of detail from gradients, where the hardware rounds in ways not modelled yet.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "quiet_stderr.h"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

const int W = 16, H = 8, LEVELS = 5;

struct Sample { float x, y, lod; };
struct Grad { float x, y, dxx, dxy, dyx, dyy; };

__global__ void sampleLod(cudaTextureObject_t t, const Sample *s, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float>(t, s[i].x, s[i].y, s[i].lod);
}

__global__ void sampleGrad(cudaTextureObject_t t, const Grad *g, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = tex2DGrad<float>(t, g[i].x, g[i].y, make_float2(g[i].dxx, g[i].dxy),
                                  make_float2(g[i].dyx, g[i].dyy));
    }
}

static int levelW(int l) { return W >> l > 0 ? W >> l : 1; }
static int levelH(int l) { return H >> l > 0 ? H >> l : 1; }
static float texel(int l, int x, int y) {
    x = x < 0 ? 0 : x >= levelW(l) ? levelW(l) - 1 : x;
    y = y < 0 ? 0 : y >= levelH(l) ? levelH(l) - 1 : y;
    return 1000.0f * l + 10.0f * y + x;
}

// One level sampled at normalised (x, y): the texel (point) or the bilinear sum with the
// hardware's 1/256 weights (the (x1, y1) corner rounded, the others what their axes leave).
static float sampleLevel(int l, float x, float y, bool linear) {
    float u = x * levelW(l), v = y * levelH(l);
    if (!linear) return texel(l, (int)floorf(u), (int)floorf(v));
    long fx = (long)floor(((double)u - 0.5) * 256.0 + 0.5);
    long fy = (long)floor(((double)v - 0.5) * 256.0 + 0.5);
    int i = (int)(fx >> 8), j = (int)(fy >> 8);
    unsigned wx = (unsigned)(fx & 255), wy = (unsigned)(fy & 255);
    unsigned w11 = (wx * wy + 128) >> 8;
    unsigned w[4] = {256 + w11 - wx - wy, wx - w11, wy - w11, w11};
    float t[4] = {texel(l, i, j), texel(l, i + 1, j), texel(l, i, j + 1), texel(l, i + 1, j + 1)};
    float sum = 0;
    for (int k = 0; k < 4; k++) sum += (float)w[k] / 256.0f * t[k];
    return sum;
}

struct Filter { bool linear, mipLinear; float bias, minClamp, maxClamp; };

static float model(const Filter &f, float x, float y, float lod) {
    float l = lod + f.bias;
    l = fmaxf(l, f.minClamp);
    l = fminf(l, f.maxClamp);
    l = std::isnan(l) ? 0.0f : fminf(fmaxf(l, 0.0f), (float)(LEVELS - 1));
    if (!f.mipLinear) {
        int n = (int)floorf(l + 0.5f);
        return sampleLevel(n > LEVELS - 1 ? LEVELS - 1 : n, x, y, f.linear);
    }
    int low = (int)floorf(l);
    unsigned up = (unsigned)floor((double)(l - low) * 256.0);  // truncated, as an H200 does
    if (low == LEVELS - 1 || up == 0) return sampleLevel(low, x, y, f.linear);
    return (float)(256 - up) / 256.0f * sampleLevel(low, x, y, f.linear)
         + (float)up / 256.0f * sampleLevel(low + 1, x, y, f.linear);
}

static cudaTextureObject_t makeTexture(cudaMipmappedArray_t mip, const Filter &f) {
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeMipmappedArray;
    res.res.mipmap.mipmap = mip;
    cudaTextureDesc tex;
    memset(&tex, 0, sizeof tex);
    tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeClamp;
    tex.filterMode = f.linear ? cudaFilterModeLinear : cudaFilterModePoint;
    tex.mipmapFilterMode = f.mipLinear ? cudaFilterModeLinear : cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 1;
    tex.mipmapLevelBias = f.bias;
    tex.minMipmapLevelClamp = f.minClamp;
    tex.maxMipmapLevelClamp = f.maxClamp;
    tex.maxAnisotropy = 1;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &res, &tex, nullptr) != cudaSuccess) return 0;
    return t;
}

static int report(const char *what, int i, float got, float want, int &bad) {
    printf("%s %2d: %a %.9g (model %.9g)%s\n", what, i, got, got, want,
           got == want ? "" : "  MISMATCH");
    if (got != want) bad++;
    return 0;
}

int main() {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t mip;
    // Asking for more levels than the extent has gives the full chain (16×8: 5 levels).
    CHECK(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(W, H, 0), 9, 0));
    float host[W * H], back[W * H];
    for (int l = 0; l < LEVELS; l++) {
        cudaArray_t level;
        CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
        cudaChannelFormatDesc got;
        cudaExtent extent;
        unsigned flags;
        CHECK(cudaArrayGetInfo(&got, &extent, &flags, level));
        printf("level %d: %zu x %zu\n", l, extent.width, extent.height);
        if ((int)extent.width != levelW(l) || (int)extent.height != levelH(l)) {
            printf("tex_mipmap: level %d has the wrong extent\n", l);
            return 1;
        }
        int w = levelW(l), h = levelH(l);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) host[y * w + x] = texel(l, x, y);
        CHECK(cudaMemcpy2DToArray(level, 0, 0, host, w * sizeof(float), w * sizeof(float), h,
                                  cudaMemcpyHostToDevice));
    }
    cudaArray_t level1;
    CHECK(cudaGetMipmappedArrayLevel(&level1, mip, 1));
    CHECK(cudaMemcpy2DFromArray(back, 8 * sizeof(float), level1, 0, 0, 8 * sizeof(float), 4,
                                cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 32; i++)
        if (back[i] != texel(1, i % 8, i / 8)) bad++;
    printf("level 1 read back: %s\n", bad ? "MISMATCH" : "ok");
    int saved = silenceStderr();
    cudaError_t beyond = cudaGetMipmappedArrayLevel(&level1, mip, LEVELS);
    restoreStderr(saved);
    if (beyond == cudaSuccess) {
        printf("tex_mipmap: level %d of %d was handed out\n", LEVELS, LEVELS);
        return 1;
    }
    cudaGetLastError();

    const Sample samples[] = {
        {0.3f, 0.6f, 0.0f},   {0.3f, 0.6f, 1.0f},   {0.3f, 0.6f, 2.0f},
        {0.3f, 0.6f, 3.0f},   {0.3f, 0.6f, 4.0f},   {0.3f, 0.6f, 7.5f},
        {0.3f, 0.6f, -1.0f},  {0.3f, 0.6f, 0.49f},  {0.3f, 0.6f, 0.5f},
        {0.3f, 0.6f, 1.25f},  {0.3f, 0.6f, 1.75f},  {0.3f, 0.6f, 2.1f},
        {0.9f, 0.1f, 0.3f},   {0.05f, 0.95f, 1.6f}, {0.52f, 0.27f, 2.9f},
        {0.77f, 0.43f, 0.125f},
    };
    const int NS = sizeof samples / sizeof samples[0];
    const Grad grads[] = {
        {0.3f, 0.6f, 1.0f / 16, 0, 0, 1.0f / 8},  // one texel along each axis: level 0
        {0.3f, 0.6f, 2.0f / 16, 0, 0, 0},          // 2 texels: level 1
        {0.3f, 0.6f, 0, 0, 0, 4.0f / 8},           // 4 texels along y: level 2
        {0.3f, 0.6f, 3.0f / 16, 4.0f / 8, 0, 0},   // a (3, 4)-texel vector: log2 5
        {0.7f, 0.2f, 0.5f / 16, 0, 0, 0.5f / 8},   // half a texel: below level 0
        {0.7f, 0.2f, 6.0f / 16, 0, 0, 1.0f / 8},   // 6 texels: log2 6
        {0.7f, 0.2f, 1.0f, 1.0f, 0, 0},            // beyond the last level
    };
    const int NG = sizeof grads / sizeof grads[0];
    const Filter filters[] = {
        {false, false, 0.0f, 0.0f, 4.0f},  // point, nearest level
        {false, true, 0.0f, 0.0f, 4.0f},   // point within levels, linear between them
        {true, false, 0.0f, 0.0f, 4.0f},   // bilinear, nearest level
        {true, true, 0.0f, 0.0f, 4.0f},    // trilinear
        {false, true, 0.5f, 1.0f, 2.5f},   // a bias and level clamps
    };
    Sample *dSamples;
    Grad *dGrads;
    float *dOut;
    CHECK(cudaMalloc(&dSamples, sizeof samples));
    CHECK(cudaMalloc(&dGrads, sizeof grads));
    CHECK(cudaMalloc(&dOut, 64 * sizeof(float)));
    CHECK(cudaMemcpy(dSamples, samples, sizeof samples, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dGrads, grads, sizeof grads, cudaMemcpyHostToDevice));
    float out[64];
    for (int fi = 0; fi < (int)(sizeof filters / sizeof filters[0]); fi++) {
        const Filter &f = filters[fi];
        cudaTextureObject_t t = makeTexture(mip, f);
        if (!t) {
            printf("tex_mipmap: cudaCreateTextureObject failed\n");
            return 1;
        }
        printf("filter %d: %s within a level, %s between levels, bias %g, clamp [%g, %g]\n", fi,
               f.linear ? "linear" : "point", f.mipLinear ? "linear" : "point", f.bias,
               f.minClamp, f.maxClamp);
        sampleLod<<<1, 32>>>(t, dSamples, dOut, NS);
        CHECK(cudaMemcpy(out, dOut, NS * sizeof(float), cudaMemcpyDeviceToHost));
        char what[32];
        for (int i = 0; i < NS; i++) {
            snprintf(what, sizeof what, "lod  %d", fi);
            report(what, i, out[i], model(f, samples[i].x, samples[i].y, samples[i].lod), bad);
        }
        sampleGrad<<<1, 32>>>(t, dGrads, dOut, NG);
        CHECK(cudaMemcpy(out, dOut, NG * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < NG; i++) {
            const Grad &g = grads[i];
            float lx = hypotf(g.dxx * W, g.dxy * H), ly = hypotf(g.dyx * W, g.dyy * H);
            float lod = log2f(fmaxf(lx, ly));
            snprintf(what, sizeof what, "grad %d", fi);
            report(what, i, out[i], model(f, g.x, g.y, lod), bad);
        }
        if (fi == 4) {
            cudaResourceDesc res;
            cudaTextureDesc tex;
            CHECK(cudaGetTextureObjectResourceDesc(&res, t));
            CHECK(cudaGetTextureObjectTextureDesc(&tex, t));
            printf("resource type %d, mipmap filter %d, bias %g, clamp [%g, %g]\n",
                   (int)res.resType, (int)tex.mipmapFilterMode, tex.mipmapLevelBias,
                   tex.minMipmapLevelClamp, tex.maxMipmapLevelClamp);
            if (res.resType != cudaResourceTypeMipmappedArray || res.res.mipmap.mipmap != mip
                || tex.mipmapFilterMode != cudaFilterModeLinear || tex.mipmapLevelBias != 0.5f
                || tex.minMipmapLevelClamp != 1.0f || tex.maxMipmapLevelClamp != 2.5f)
                bad++;
        }
        CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFreeMipmappedArray(mip));
    CHECK(cudaFree(dSamples));
    CHECK(cudaFree(dGrads));
    CHECK(cudaFree(dOut));
    printf(bad ? "tex_mipmap: FAILED (%d)\n" : "tex_mipmap: passed\n", bad);
    return bad ? 1 : 0;
}
