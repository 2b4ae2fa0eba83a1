// Probe of linear filtering by texel format: for unsigned and signed normalised 8- and 16-bit
// texels and half floats (read as normalised floats where integer), a 1D texture of two texels
// sampled at x = 0.5 + k/256 (k = 0..256), and a 2D texture of four texels sampled on a 17×17
// grid of the unit square between their centres. Output: one line per distinct result run
// (`format k_first k_last value`, hex floats) for 1D and every 2D sample, to diff the CPU
// device's output against a GPU's.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void sample1d(cudaTextureObject_t t, float *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1D<float>(t, 0.5f + k / 256.0f);
}
__global__ void sample2d(cudaTextureObject_t t, float *out) {
    int k = threadIdx.x + blockIdx.x * blockDim.x;
    if (k < 289) out[k] = tex2D<float>(t, 0.5f + (k % 17) / 16.0f, 0.5f + (k / 17) / 16.0f);
}
static cudaTextureObject_t make(cudaArray_t a, bool normalised_read) {
    cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
    cudaTextureDesc d = {}; d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
    d.filterMode = cudaFilterModeLinear;
    d.readMode = normalised_read ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
    cudaTextureObject_t t = 0; cudaCreateTextureObject(&t, &r, &d, nullptr); return t;
}
static void runs(const char *name, const float *v, int n) {
    int start = 0;
    for (int k = 1; k <= n; k++)
        if (k == n || v[k] != v[start]) { printf("%s 1d %d %d %a\n", name, start, k - 1, v[start]); start = k; }
}
template <typename T>
static int probe(const char *name, const T (&one)[2], const T (&two)[4], bool normalised_read, float *d,
                 cudaChannelFormatDesc f = cudaCreateChannelDesc<T>()) {
    cudaArray_t a1, a2;
    CHECK(cudaMallocArray(&a1, &f, 2, 1));
    CHECK(cudaMemcpy2DToArray(a1, 0, 0, one, 2 * sizeof(T), 2 * sizeof(T), 1, cudaMemcpyHostToDevice));
    CHECK(cudaMallocArray(&a2, &f, 2, 2));
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, two, 2 * sizeof(T), 2 * sizeof(T), 2, cudaMemcpyHostToDevice));
    static float h[289];
    cudaTextureObject_t t1 = make(a1, normalised_read), t2 = make(a2, normalised_read);
    sample1d<<<2, 256>>>(t1, d, 257);
    CHECK(cudaMemcpy(h, d, 257 * sizeof(float), cudaMemcpyDeviceToHost));
    runs(name, h, 257);
    sample2d<<<2, 256>>>(t2, d);
    CHECK(cudaMemcpy(h, d, 289 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 289; k++) printf("%s 2d %d %a\n", name, k, h[k]);
    CHECK(cudaDestroyTextureObject(t1)); CHECK(cudaDestroyTextureObject(t2));
    CHECK(cudaFreeArray(a1)); CHECK(cudaFreeArray(a2));
    return 0;
}
int main() {
    float *d;
    CHECK(cudaMalloc(&d, 289 * sizeof(float)));
    unsigned char u8a[2] = {3, 250}, u8b[4] = {0, 255, 17, 200};
    signed char s8a[2] = {-128, 127}, s8b[4] = {-127, 100, 5, -60};
    unsigned short u16a[2] = {1000, 60000}, u16b[4] = {0, 65535, 12345, 54321};
    short s16a[2] = {-32768, 32767}, s16b[4] = {-30000, 32767, 77, -1234};
    __half ha[2] = {__float2half(-1.5f), __float2half(1000.25f)};
    __half hb[4] = {__float2half(0.1f), __float2half(-3.0f), __float2half(65504.0f), __float2half(0.001f)};
    int failed = probe("unorm8", u8a, u8b, true, d) || probe("snorm8", s8a, s8b, true, d)
        || probe("unorm16", u16a, u16b, true, d) || probe("snorm16", s16a, s16b, true, d)
        || probe("half", ha, hb, false, d, cudaCreateChannelDescHalf());
    return failed;
}
