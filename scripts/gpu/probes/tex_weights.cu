// Probe of the texture unit's linear-filter weights: a 1D float texture of two texels {0, 256}
// (clamped), sampled at x = 0.5 + k/4096 for k = 0..4096 (unnormalised) and at the same points
// normalised (x / 2): each result is 256 × the weight of the second texel, so the printed
// values show how the hardware quantises the fractional coordinate. Then a 2D case with texels
// {0, 1, 256, 65536} to show whether the two axes' weights are combined exactly. Output: one
// line per distinct result run (`k_first k_last value`), to compare with the CPU device.
#include <cstdio>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void sample1d(cudaTextureObject_t t, float *out, int n, int norm) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) { float x = 0.5f + k / 4096.0f; out[k] = tex1D<float>(t, norm ? x / 2.0f : x); }
}
__global__ void sample_wrap(cudaTextureObject_t t, float *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex1D<float>(t, -1.0f + k / 2048.0f);
}
__global__ void sample2d(cudaTextureObject_t t, float *out, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<float>(t, 0.5f + (k % 64) / 64.0f, 0.5f + (k / 64) / 64.0f);
}
static cudaTextureObject_t make(cudaArray_t a, int norm, cudaTextureAddressMode mode = cudaAddressModeClamp) {
    cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
    cudaTextureDesc d = {}; d.addressMode[0] = d.addressMode[1] = mode;
    d.filterMode = cudaFilterModeLinear; d.readMode = cudaReadModeElementType; d.normalizedCoords = norm;
    cudaTextureObject_t t = 0; cudaCreateTextureObject(&t, &r, &d, nullptr); return t;
}
static void runs(const char *name, const float *v, int n) {
    int start = 0;
    for (int k = 1; k <= n; k++)
        if (k == n || v[k] != v[start]) { printf("%s %d %d %a\n", name, start, k - 1, v[start]); start = k; }
}
int main() {
    const int n = 4097; float *d, h[n];
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t a1, a2;
    float t1[2] = {0, 256}, t2[4] = {0, 1, 256, 65536};
    CHECK(cudaMallocArray(&a1, &f, 2, 1)); CHECK(cudaMemcpy2DToArray(a1, 0, 0, t1, 8, 8, 1, cudaMemcpyHostToDevice));
    CHECK(cudaMallocArray(&a2, &f, 2, 2)); CHECK(cudaMemcpy2DToArray(a2, 0, 0, t2, 8, 8, 2, cudaMemcpyHostToDevice));
    for (int norm = 0; norm < 2; norm++) {
        sample1d<<<(n + 255) / 256, 256>>>(make(a1, norm), d, n, norm);
        CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
        runs(norm ? "1d_norm" : "1d", h, n);
    }
    // Normalised and wrapped, x = -1 + k/2048 over two texels {0, 256}: how a normalised
    // coordinate becomes a fixed-point texel position.
    float *w; const int nw = 6145; static float hw[nw];
    CHECK(cudaMalloc(&w, nw * sizeof(float)));
    sample_wrap<<<(nw + 255) / 256, 256>>>(make(a1, 1, cudaAddressModeWrap), w, nw);
    CHECK(cudaMemcpy(hw, w, nw * sizeof(float), cudaMemcpyDeviceToHost));
    runs("1d_wrap_norm", hw, nw);
    sample2d<<<16, 256>>>(make(a2, 0), d, 4096);
    CHECK(cudaMemcpy(h, d, 4096 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 4096; k += 273) printf("2d %d %a\n", k, h[k]);
    return 0;
}
