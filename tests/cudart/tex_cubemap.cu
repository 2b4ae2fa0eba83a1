// Cubemap textures and surfaces: a 4×4 float cubemap (cudaArrayCubemap) whose face f holds
// 100 f + 10 y + x, read with texCubemap at every face's centre, off centre and near the edges
// and corners (point filtering), and with linear filtering inside the faces; a layered cubemap of
// two cubes (cudaArrayLayered | cudaArrayCubemap) read with texCubemapLayered; a surface over a
// cubemap written with surfCubemapwrite and surfCubemapLayeredwrite, read back with
// surfCubemapread and by a copy. Every sample is printed in full (hex float and %.9g) for
// comparison with a GPU, and checked against a host model: the face by the major axis of the
// direction and the face coordinates (s, t) by the CUDA programming guide's table, then the
// texel under clamp (point) or bilinear weights in 1/256 steps within the face (linear;
// non-seamless cubemaps do not filter across faces).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "quiet_stderr.h"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

const int N = 4;  // face width and height

__global__ void sampleCube(cudaTextureObject_t t, const float4 *dir, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float>(t, dir[i].x, dir[i].y, dir[i].z);
}

__global__ void sampleCubeLayered(cudaTextureObject_t t, const float4 *dir, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemapLayered<float>(t, dir[i].x, dir[i].y, dir[i].z, (int)dir[i].w);
}

// Face f, texel (x, y): 5000 + 100 f + 10 y + x; cube 1 of the layered surface adds 600.
__global__ void writeFaces(cudaSurfaceObject_t s, int layered) {
    int x = threadIdx.x, y = threadIdx.y, f = blockIdx.x;
    float v = 5000.0f + 100 * f + 10 * y + x;
    if (layered) {
        surfCubemapLayeredwrite(v + 600.0f, s, x * (int)sizeof(float), y, 6 + f);
    } else {
        surfCubemapwrite(v, s, x * (int)sizeof(float), y, f);
    }
}

__global__ void readFaces(cudaSurfaceObject_t s, float *out) {
    int x = threadIdx.x, y = threadIdx.y, f = blockIdx.x;
    float v;
    surfCubemapread(&v, s, x * (int)sizeof(float), y, f);
    out[(f * N + y) * N + x] = v;
}

// The guide's table: the face the major axis picks and (s, t) in [0, 1].
static int face(float x, float y, float z, float *s, float *t) {
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    int f;
    if (ax >= ay && ax >= az) {
        f = x >= 0 ? 0 : 1; m = ax; sc = x >= 0 ? -z : z; tc = -y;
    } else if (ay >= az) {
        f = y >= 0 ? 2 : 3; m = ay; sc = x; tc = y >= 0 ? z : -z;
    } else {
        f = z >= 0 ? 4 : 5; m = az; sc = z >= 0 ? x : -x; tc = -y;
    }
    *s = (sc / m + 1) / 2;
    *t = (tc / m + 1) / 2;
    return f;
}

static float texel(int layer, int x, int y) {
    x = x < 0 ? 0 : x >= N ? N - 1 : x;
    y = y < 0 ? 0 : y >= N ? N - 1 : y;
    return 100.0f * layer + 10.0f * y + x;
}

static float model(float x, float y, float z, int cube, bool linear) {
    float s, t;
    int layer = 6 * cube + face(x, y, z, &s, &t);
    float u = s * N, v = t * N;
    if (!linear) return texel(layer, (int)floorf(u), (int)floorf(v));
    long fx = (long)floor(((double)u - 0.5) * 256.0 + 0.5);
    long fy = (long)floor(((double)v - 0.5) * 256.0 + 0.5);
    int i = (int)(fx >> 8), j = (int)(fy >> 8);
    unsigned wx = (unsigned)(fx & 255), wy = (unsigned)(fy & 255);
    unsigned w11 = (wx * wy + 128) >> 8;
    unsigned w[4] = {256 + w11 - wx - wy, wx - w11, wy - w11, w11};
    float c[4] = {texel(layer, i, j), texel(layer, i + 1, j), texel(layer, i, j + 1),
                  texel(layer, i + 1, j + 1)};
    float sum = 0;
    for (int k = 0; k < 4; k++) sum += (float)w[k] / 256.0f * c[k];
    return sum;
}

static cudaTextureObject_t makeTexture(cudaArray_t array, bool linear) {
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc tex;
    memset(&tex, 0, sizeof tex);
    tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeClamp;
    tex.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 1;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &res, &tex, nullptr) != cudaSuccess) return 0;
    return t;
}

static void report(const char *what, int i, float got, float want, int &bad) {
    printf("%s %2d: %a %.9g (model %.9g)%s\n", what, i, got, got, want,
           got == want ? "" : "  MISMATCH");
    if (got != want) bad++;
}

// Copies `layers` faces of N×N floats between host memory and `array`.
static cudaError_t copyFaces(cudaArray_t array, float *host, int layers, bool toArray) {
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    cudaPitchedPtr ptr = make_cudaPitchedPtr(host, N * sizeof(float), N, N);
    if (toArray) {
        p.srcPtr = ptr;
        p.dstArray = array;
        p.kind = cudaMemcpyHostToDevice;
    } else {
        p.srcArray = array;
        p.dstPtr = ptr;
        p.kind = cudaMemcpyDeviceToHost;
    }
    p.extent = make_cudaExtent(N, N, layers);
    return cudaMemcpy3D(&p);
}

int main() {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    int bad = 0;
    // Cubemaps need square faces and a depth of 6.
    cudaArray_t wrong;
    int saved = silenceStderr();
    cudaError_t made = cudaMalloc3DArray(&wrong, &desc, make_cudaExtent(N, N + 1, 6),
                                         cudaArrayCubemap);
    restoreStderr(saved);
    if (made == cudaSuccess) {
        printf("tex_cubemap: a cubemap of non-square faces was made\n");
        return 1;
    }
    cudaGetLastError();

    cudaArray_t cube, layered;
    CHECK(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(N, N, 6),
                            cudaArrayCubemap | cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&layered, &desc, make_cudaExtent(N, N, 12),
                            cudaArrayLayered | cudaArrayCubemap | cudaArraySurfaceLoadStore));
    cudaExtent extent;
    unsigned flags;
    CHECK(cudaArrayGetInfo(nullptr, &extent, &flags, layered));
    printf("layered cubemap: %zu x %zu x %zu, flags %#x\n", extent.width, extent.height,
           extent.depth, flags);
    if (flags != (cudaArrayLayered | cudaArrayCubemap | cudaArraySurfaceLoadStore)) bad++;
    static float host[12 * N * N];
    for (int l = 0; l < 12; l++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) host[(l * N + y) * N + x] = texel(l, x, y);
    CHECK(copyFaces(cube, host, 6, true));
    CHECK(copyFaces(layered, host, 12, true));

    const float4 dirs[] = {
        // Each face's centre.
        {1, 0, 0, 0}, {-1, 0, 0, 0}, {0, 1, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}, {0, 0, -1, 0},
        // Off centre: the table's signs.
        {1, 0.3f, -0.6f, 0}, {-2, 0.7f, 0.2f, 0}, {0.4f, 1, 0.55f, 0}, {-0.4f, -1, 0.55f, 0},
        {0.6f, -0.2f, 1, 0}, {0.6f, 0.2f, -1, 0},
        // Near edges and corners: the larger component decides.
        {1, 0.99f, 0.2f, 0}, {0.99f, 1, 0.2f, 0}, {0.98f, -0.97f, -0.99f, 0},
        {-0.999f, 0.5f, 1, 0}, {0.2f, -1, -0.999f, 0}, {0.95f, 0.96f, 0.97f, 1},
    };
    const int ND = sizeof dirs / sizeof dirs[0];
    float4 *dDirs;
    float *dOut;
    CHECK(cudaMalloc(&dDirs, sizeof dirs));
    CHECK(cudaMalloc(&dOut, 12 * N * N * sizeof(float)));
    CHECK(cudaMemcpy(dDirs, dirs, sizeof dirs, cudaMemcpyHostToDevice));
    float out[12 * N * N];
    for (int linear = 0; linear < 2; linear++) {
        cudaTextureObject_t t = makeTexture(cube, linear);
        cudaTextureObject_t tl = makeTexture(layered, linear);
        if (!t || !tl) {
            printf("tex_cubemap: cudaCreateTextureObject failed\n");
            return 1;
        }
        sampleCube<<<1, 32>>>(t, dDirs, dOut, ND);
        CHECK(cudaMemcpy(out, dOut, ND * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < ND; i++)
            report(linear ? "cube linear" : "cube point ", i, out[i],
                   model(dirs[i].x, dirs[i].y, dirs[i].z, 0, linear), bad);
        sampleCubeLayered<<<1, 32>>>(tl, dDirs, dOut, ND);
        CHECK(cudaMemcpy(out, dOut, ND * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < ND; i++)
            report(linear ? "layered linear" : "layered point ", i, out[i],
                   model(dirs[i].x, dirs[i].y, dirs[i].z, (int)dirs[i].w, linear), bad);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaDestroyTextureObject(tl));
    }

    // Surfaces: faces are layers.
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = cube;
    cudaSurfaceObject_t s, sl;
    CHECK(cudaCreateSurfaceObject(&s, &res));
    res.res.array.array = layered;
    CHECK(cudaCreateSurfaceObject(&sl, &res));
    writeFaces<<<6, dim3(N, N)>>>(s, 0);
    writeFaces<<<6, dim3(N, N)>>>(sl, 1);
    readFaces<<<6, dim3(N, N)>>>(s, dOut);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dOut, 6 * N * N * sizeof(float), cudaMemcpyDeviceToHost));
    int surfaceBad = 0;
    for (int i = 0; i < 6 * N * N; i++) {
        int f = i / (N * N), y = i / N % N, x = i % N;
        if (out[i] != 5000.0f + 100 * f + 10 * y + x) surfaceBad++;
    }
    CHECK(copyFaces(layered, host, 12, false));
    for (int i = 0; i < 12 * N * N; i++) {
        int l = i / (N * N), y = i / N % N, x = i % N;
        float want = l < 6 ? texel(l, x, y) : 5600.0f + 100 * (l - 6) + 10 * y + x;
        if (host[i] != want) surfaceBad++;
    }
    for (int f = 0; f < 6; f++)
        printf("surface face %d: %a %a (layered cube 1: %a)\n", f, out[f * N * N],
               out[f * N * N + N * N - 1], host[(6 + f) * N * N + 5]);
    printf("surfaces: %s\n", surfaceBad ? "MISMATCH" : "ok");
    bad += surfaceBad;
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaDestroySurfaceObject(sl));
    CHECK(cudaFreeArray(cube));
    CHECK(cudaFreeArray(layered));
    CHECK(cudaFree(dDirs));
    CHECK(cudaFree(dOut));
    printf(bad ? "tex_cubemap: FAILED (%d)\n" : "tex_cubemap: passed\n", bad);
    return bad ? 1 : 0;
}
