// Bilateral filtering in the style of CUDA's bilateralFilter sample: an RGBA8 image in a CUDA
// array read through a texture object (cudaReadModeNormalizedFloat, point sampling, clamped
// addresses), a spatial Gaussian in __constant__ memory (cudaMemcpyToSymbol), a range weight
// from __expf of the colour distance, and the result written to pitched memory
// (cudaMallocPitch) and read back with cudaMemcpy2D; several passes ping-pong through a second
// array filled with cudaMemcpy2DToArray from the device. A host filter checks every channel
// (within 1 of the device, which uses the fast exponential).
// Default: 512 x 384, radius 5, 2 passes (arguments: width, height, radius, passes).
#include <algorithm>
#include <cmath>
#include <vector>
#include "../common/helpers.h"

constexpr int MAX_RADIUS = 16;
__constant__ float cGaussian[2 * MAX_RADIUS + 1];

__device__ __host__ inline float euclideanLen(float4 a, float4 b, float d) {
    float mod = (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z);
#ifdef __CUDA_ARCH__
    return __expf(-mod / (2.f * d * d));
#else
    return expf(-mod / (2.f * d * d));
#endif
}

__device__ __host__ inline unsigned int rgbaFloatToInt(float4 rgba) {
    rgba.x = fminf(fmaxf(rgba.x, 0.0f), 1.0f);
    rgba.y = fminf(fmaxf(rgba.y, 0.0f), 1.0f);
    rgba.z = fminf(fmaxf(rgba.z, 0.0f), 1.0f);
    rgba.w = fminf(fmaxf(rgba.w, 0.0f), 1.0f);
    return ((unsigned int)(rgba.w * 255.0f) << 24) | ((unsigned int)(rgba.z * 255.0f) << 16) |
           ((unsigned int)(rgba.y * 255.0f) << 8) | ((unsigned int)(rgba.x * 255.0f));
}

__global__ void d_bilateral_filter(unsigned int *od, size_t pitchWords, int w, int h, float e_d, int r,
                                   cudaTextureObject_t rgbaTex) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f;
    float4 t = {0.f, 0.f, 0.f, 0.f};
    float4 center = tex2D<float4>(rgbaTex, x, y);
    for (int i = -r; i <= r; i++)
        for (int j = -r; j <= r; j++) {
            float4 curPix = tex2D<float4>(rgbaTex, x + j, y + i);
            float factor = cGaussian[i + r] * cGaussian[j + r] * euclideanLen(curPix, center, e_d);
            t.x += factor * curPix.x;
            t.y += factor * curPix.y;
            t.z += factor * curPix.z;
            t.w += factor * curPix.w;
            sum += factor;
        }
    od[y * pitchWords + x] = rgbaFloatToInt(make_float4(t.x / sum, t.y / sum, t.z / sum, t.w / sum));
}

static cudaTextureObject_t textureOf(cudaArray_t array) {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeNormalizedFloat;
    desc.normalizedCoords = 0;
    cudaTextureObject_t tex;
    checkCudaErrors(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
    return tex;
}

static float4 texel(const std::vector<unsigned int> &img, int w, int h, int x, int y) {
    unsigned int p = img[size_t(std::min(std::max(y, 0), h - 1)) * w + std::min(std::max(x, 0), w - 1)];
    return make_float4((p & 0xff) / 255.f, ((p >> 8) & 0xff) / 255.f, ((p >> 16) & 0xff) / 255.f, (p >> 24) / 255.f);
}

int main(int argc, char **argv) {
    const int w = sizeArg(argc, argv, 512), h = argc > 2 ? atoi(argv[2]) : 384;
    const int r = std::min(MAX_RADIUS, argc > 3 ? atoi(argv[3]) : 5), passes = argc > 4 ? atoi(argv[4]) : 2;
    const float gaussianDelta = 4.f, euclideanDelta = 0.1f;
    float gaussian[2 * MAX_RADIUS + 1];
    for (int i = 0; i < 2 * r + 1; ++i) {
        float x = float(i - r);
        gaussian[i] = expf(-(x * x) / (2 * gaussianDelta * gaussianDelta));
    }
    checkCudaErrors(cudaMemcpyToSymbol(cGaussian, gaussian, sizeof(float) * (2 * r + 1)));

    // A test card: colour gradients, hard-edged shapes and noise.
    std::vector<unsigned int> img(size_t(w) * h);
    Lcg rng(17);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int red = 255 * x / w, green = 255 * y / h, blue = ((x / 40 + y / 40) % 2) * 200;
            if ((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) < h * h / 16) red = 250, green = 30, blue = 60;
            int noise = int(rng.next() % 41) - 20;
            auto clamp = [](int v) { return unsigned(std::min(255, std::max(0, v))); };
            img[size_t(y) * w + x] = clamp(red + noise) | clamp(green + noise) << 8 | clamp(blue - noise) << 16 | 255u << 24;
        }

    cudaChannelFormatDesc channel = cudaCreateChannelDesc<uchar4>();
    cudaArray_t array[2];
    for (auto &a : array) checkCudaErrors(cudaMallocArray(&a, &channel, w, h));
    checkCudaErrors(cudaMemcpy2DToArray(array[0], 0, 0, img.data(), w * sizeof(unsigned int), w * sizeof(unsigned int),
                                        h, cudaMemcpyHostToDevice));
    cudaTextureObject_t tex[2] = {textureOf(array[0]), textureOf(array[1])};
    unsigned int *dOut;
    size_t pitch;
    checkCudaErrors(cudaMallocPitch(&dOut, &pitch, w * sizeof(unsigned int), h));
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    for (int p = 0; p < passes; ++p) {
        d_bilateral_filter<<<grid, block>>>(dOut, pitch / sizeof(unsigned int), w, h, euclideanDelta, r, tex[p % 2]);
        checkCudaErrors(cudaGetLastError());
        if (p + 1 < passes)
            checkCudaErrors(cudaMemcpy2DToArray(array[(p + 1) % 2], 0, 0, dOut, pitch, w * sizeof(unsigned int), h,
                                                cudaMemcpyDeviceToDevice));
    }
    std::vector<unsigned int> out(size_t(w) * h);
    checkCudaErrors(cudaMemcpy2D(out.data(), w * sizeof(unsigned int), dOut, pitch, w * sizeof(unsigned int), h,
                                 cudaMemcpyDeviceToHost));

    // Host passes, each from the previous pass's device result (so differences do not compound).
    std::vector<unsigned int> src = img, dev(size_t(w) * h);
    long long off = 0, worst = 0;
    for (int p = 0; p < passes; ++p) {
        if (p + 1 < passes) { // the device's intermediate result, from the array the next pass reads
            checkCudaErrors(cudaMemcpy2DFromArray(dev.data(), w * sizeof(unsigned int), array[(p + 1) % 2], 0, 0,
                                                  w * sizeof(unsigned int), h, cudaMemcpyDeviceToHost));
        } else {
            dev = out;
        }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                float4 center = texel(src, w, h, x, y), t = {0.f, 0.f, 0.f, 0.f};
                float sum = 0.f;
                for (int i = -r; i <= r; i++)
                    for (int j = -r; j <= r; j++) {
                        float4 cur = texel(src, w, h, x + j, y + i);
                        float factor = gaussian[i + r] * gaussian[j + r] * euclideanLen(cur, center, euclideanDelta);
                        t.x += factor * cur.x, t.y += factor * cur.y, t.z += factor * cur.z, t.w += factor * cur.w;
                        sum += factor;
                    }
                unsigned int want = rgbaFloatToInt(make_float4(t.x / sum, t.y / sum, t.z / sum, t.w / sum));
                unsigned int got = dev[size_t(y) * w + x];
                for (int c = 0; c < 32; c += 8) {
                    long long d = std::llabs((long long)((want >> c) & 0xff) - (long long)((got >> c) & 0xff));
                    off += d != 0;
                    worst = std::max(worst, d);
                }
            }
        src = dev;
    }
    unsigned long long checksum = 0;
    for (unsigned int p : out) checksum = checksum * 31 + p;
    const bool ok = worst <= 1 && off * 100 <= 4LL * w * h * passes;
    printf("%d x %d RGBA, radius %d, %d passes: checksum %016llx\n", w, h, r, passes, checksum);
    printf("channels within 1 of the host: %s (%lld off by one)\n", worst <= 1 ? "yes" : "NO", off);
    for (auto t : tex) checkCudaErrors(cudaDestroyTextureObject(t));
    for (auto a : array) checkCudaErrors(cudaFreeArray(a));
    checkCudaErrors(cudaFree(dOut));
    return finish("bilateral_texture", ok);
}
