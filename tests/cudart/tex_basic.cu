// Texture and surface objects on a 2D float array: point and linear sampling (clamp, border,
// normalised wrap), tex1Dfetch on linear memory, and a surface 3x1 box blur (clamped reads)
// copied back with cudaMemcpy2DFromArray. Each result is checked against a host model of the
// hardware (linear weights in 1/256 steps, the upper corner's product rounded to 1/256) and printed in
// full (hex floats), for comparison with a GPU.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

const int W = 8, H = 6, N = 64;

__global__ void sample(cudaTextureObject_t t, const float2 *xy, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, xy[i].x, xy[i].y);
}

__global__ void fetch(cudaTextureObject_t t, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i - 2);
}

__global__ void blur(cudaSurfaceObject_t in, cudaSurfaceObject_t out) {
    int x = threadIdx.x, y = blockIdx.x;
    float a, b, c;
    surf2Dread(&a, in, (x - 1) * 4, y, cudaBoundaryModeClamp);
    surf2Dread(&b, in, x * 4, y);
    surf2Dread(&c, in, (x + 1) * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite((a + b + c) / 3.0f, out, x * 4, y);
}

static float texel(const float *img, int x, int y, int mode, bool *border) {
    if (mode == cudaAddressModeBorder && (x < 0 || x >= W || y < 0 || y >= H)) { *border = true; return 0; }
    if (mode == cudaAddressModeWrap) { x = ((x % W) + W) % W; y = ((y % H) + H) % H; }
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    return img[y * W + x];
}

static float model(const float *img, float x, float y, bool linear, bool norm, int mode) {
    if (norm) { x *= W; y *= H; }
    bool border = false;
    if (!linear) {
        float v = texel(img, (int)floorf(x), (int)floorf(y), mode, &border);
        return border ? 0.0f : v;
    }
    long fx = (long)floor((x - 0.5) * 256.0 + 0.5), fy = (long)floor((y - 0.5) * 256.0 + 0.5);
    int i = (int)(fx >> 8), j = (int)(fy >> 8);
    int a = (int)(fx & 255), b = (int)(fy & 255);
    float t[4];
    for (int k = 0; k < 4; k++) {
        border = false;
        float v = texel(img, i + (k & 1), j + (k >> 1), mode, &border);
        t[k] = border ? 0.0f : v;
    }
    // As an H200 weighs the corners (scripts/gpu/probes/tex_weights.cu): the (x1, y1) corner
    // is a·b/256 rounded to the nearest 1/256, halves up; the others what their axes leave.
    int w11 = (a * b + 128) >> 8;
    int w[4] = {256 + w11 - a - b, a - w11, b - w11, w11};
    float s = 0;
    for (int k = 0; k < 4; k++) s += w[k] / 256.0f * t[k];
    return s;
}

int main() {
    float img[W * H];
    for (int i = 0; i < W * H; i++) img[i] = (float)((i * 37) % 23) - 5.5f;
    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t arr, arr2;
    CHECK(cudaMallocArray(&arr, &fmt, W, H, cudaArraySurfaceLoadStore));
    CHECK(cudaMallocArray(&arr2, &fmt, W, H, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, W * 4, W * 4, H, cudaMemcpyHostToDevice));

    float2 xy[N];
    for (int i = 0; i < N; i++) xy[i] = make_float2(-1.3f + i * 0.173f, -0.7f + i * 0.119f);
    float2 *dxy; float *dout;
    CHECK(cudaMalloc(&dxy, sizeof xy));
    CHECK(cudaMalloc(&dout, N * 4));
    CHECK(cudaMemcpy(dxy, xy, sizeof xy, cudaMemcpyHostToDevice));

    struct Case { const char *name; bool linear, norm; int mode; } cases[] = {
        {"point_clamp", false, false, cudaAddressModeClamp},
        {"linear_clamp", true, false, cudaAddressModeClamp},
        {"linear_border", true, false, cudaAddressModeBorder},
        {"point_wrap_norm", false, true, cudaAddressModeWrap},
        {"linear_wrap_norm", true, true, cudaAddressModeWrap},
    };
    int bad = 0;
    for (const Case &c : cases) {
        cudaResourceDesc res; memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeArray; res.res.array.array = arr;
        cudaTextureDesc td; memset(&td, 0, sizeof td);
        td.addressMode[0] = td.addressMode[1] = (cudaTextureAddressMode)c.mode;
        td.filterMode = c.linear ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = c.norm;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        float2 in[N];
        for (int i = 0; i < N; i++) in[i] = c.norm ? make_float2(xy[i].x / 3.0f, xy[i].y / 2.0f) : xy[i];
        CHECK(cudaMemcpy(dxy, in, sizeof in, cudaMemcpyHostToDevice));
        sample<<<2, 32>>>(t, dxy, dout, N);
        float out[N];
        CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        unsigned h = 0;
        for (int i = 0; i < N; i++) {
            float want = model(img, in[i].x, in[i].y, c.linear, c.norm, c.mode);
            unsigned bits; memcpy(&bits, &out[i], 4); h = h * 31 + bits;
            if (out[i] != want) { if (bad++ < 5) printf("%s[%d] (%g, %g): %a, model %a\n", c.name, i, in[i].x, in[i].y, out[i], want); }
        }
        printf("%s %08x\n", c.name, h);
        // Every sample in full (%a is exact), so a comparison with a GPU compares values.
        for (int i = 0; i < N; i++) printf("%s%a%s", i % 8 ? " " : "  ", out[i], i % 8 == 7 ? "\n" : "");
        CHECK(cudaDestroyTextureObject(t));
    }

    float *lin; CHECK(cudaMalloc(&lin, 16 * 4));
    CHECK(cudaMemcpy(lin, img, 16 * 4, cudaMemcpyHostToDevice));
    cudaResourceDesc lres; memset(&lres, 0, sizeof lres);
    lres.resType = cudaResourceTypeLinear; lres.res.linear.devPtr = lin;
    lres.res.linear.desc = fmt; lres.res.linear.sizeInBytes = 16 * 4;
    cudaTextureDesc ltd; memset(&ltd, 0, sizeof ltd);
    cudaTextureObject_t lt; CHECK(cudaCreateTextureObject(&lt, &lres, &ltd, nullptr));
    fetch<<<1, 20>>>(lt, dout, 20);
    float f[20]; CHECK(cudaMemcpy(f, dout, sizeof f, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 20; i++) {
        int k = i - 2; float want = (k >= 0 && k < 16) ? img[k] : 0.0f;
        if (f[i] != want) { if (bad++ < 10) printf("fetch[%d]: %g, want %g\n", i, f[i], want); }
    }
    printf("fetch:");
    for (int i = 0; i < 20; i++) printf(" %a", f[i]);
    printf("\n");

    cudaResourceDesc sres; memset(&sres, 0, sizeof sres);
    sres.resType = cudaResourceTypeArray;
    cudaSurfaceObject_t s_in, s_out;
    sres.res.array.array = arr; CHECK(cudaCreateSurfaceObject(&s_in, &sres));
    sres.res.array.array = arr2; CHECK(cudaCreateSurfaceObject(&s_out, &sres));
    blur<<<H, W>>>(s_in, s_out);
    CHECK(cudaGetLastError());
    float res2[W * H];
    CHECK(cudaMemcpy2DFromArray(res2, W * 4, arr2, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++) for (int x = 0; x < W; x++) {
        float a = img[y * W + (x > 0 ? x - 1 : 0)], b = img[y * W + x], c = img[y * W + (x < W - 1 ? x + 1 : W - 1)];
        float want = (a + b + c) / 3.0f;
        if (res2[y * W + x] != want) { if (bad++ < 15) printf("blur(%d,%d): %g want %g\n", x, y, res2[y * W + x], want); }
    }
    for (int y = 0; y < H; y++) {
        printf("blur row %d:", y);
        for (int x = 0; x < W; x++) printf(" %a", res2[y * W + x]);
        printf("\n");
    }
    CHECK(cudaDestroySurfaceObject(s_in)); CHECK(cudaDestroySurfaceObject(s_out));
    CHECK(cudaFreeArray(arr)); CHECK(cudaFreeArray(arr2));
    printf(bad ? "tex_basic: FAILED\n" : "tex_basic: passed\n");
    return bad != 0;
}
