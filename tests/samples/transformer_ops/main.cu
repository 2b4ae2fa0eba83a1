// One transformer layer's elementwise and row-wise kernels on 16-bit data (default 4096 rows of
// 1024 features): bf16 softmax, half and bf16 layer normalisation, bias + GELU on bf16 pairs,
// and a bf16 GEMV. Each result is compared with a float host reference within the 16-bit
// types' rounding; the summary counts the values outside the tolerance (none for a pass).
#include <cmath>
#include <vector>
#include "common.cuh"

static unsigned seed = 99;
static float rnd() {
    seed = seed * 1664525u + 1013904223u;
    return ((seed >> 8) * (1.0f / 16777216.0f)) * 2.f - 1.f;
}

template <typename T> static std::vector<T> randomVector(size_t n, float scale, float offset = 0) {
    std::vector<T> v(n);
    for (auto &x : v) x = Convert<T>::fromFloat(rnd() * scale + offset);
    return v;
}

template <typename T> static T *toDevice(const std::vector<T> &v) {
    T *d;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> fromDevice(const T *d, size_t n) {
    std::vector<T> v(n);
    CK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}

// Values outside |device - host| <= abs + rel * |host|.
template <typename T>
static size_t outside(const std::vector<T> &d, const std::vector<float> &h, float abs, float rel) {
    size_t bad = 0;
    for (size_t i = 0; i < h.size(); ++i) {
        float v = Convert<T>::toFloat(d[i]);
        if (!(std::fabs(v - h[i]) <= abs + rel * std::fabs(h[i]))) ++bad;
    }
    return bad;
}

template <typename T>
static size_t checkLayerNorm(int rows, int cols, const char *name) {
    auto x = randomVector<T>(size_t(rows) * cols, 3.f, 0.5f);
    auto g = randomVector<T>(cols, 0.5f, 1.f), b = randomVector<T>(cols, 0.2f);
    T *dx = toDevice(x), *dg = toDevice(g), *db = toDevice(b), *dy;
    CK(cudaMalloc(&dy, x.size() * sizeof(T)));
    launchLayerNorm<T>(dx, dg, db, dy, rows, cols);
    auto y = fromDevice(dy, x.size());
    std::vector<float> ref(x.size());
    for (int r = 0; r < rows; ++r) {
        double s = 0, s2 = 0;
        for (int c = 0; c < cols; ++c) {
            double v = Convert<T>::toFloat(x[size_t(r) * cols + c]);
            s += v, s2 += v * v;
        }
        double mean = s / cols, inv = 1.0 / std::sqrt(std::max(s2 / cols - mean * mean, 0.0) + 1e-5);
        for (int c = 0; c < cols; ++c)
            ref[size_t(r) * cols + c] = float((Convert<T>::toFloat(x[size_t(r) * cols + c]) - mean) *
                                                  inv * Convert<T>::toFloat(g[c]) +
                                              Convert<T>::toFloat(b[c]));
    }
    size_t bad = outside(y, ref, 0.02f, 0.01f);
    printf("layernorm %-5s: %zu of %zu outside tolerance\n", name, bad, ref.size());
    for (T *p : {dx, dg, db, dy}) CK(cudaFree(p));
    return bad;
}

int main(int argc, char **argv) {
    const int rows = argc > 1 ? atoi(argv[1]) : 4096, cols = 1024;
    size_t bad = 0;

    // Softmax.
    auto logits = randomVector<__nv_bfloat16>(size_t(rows) * cols, 8.f);
    __nv_bfloat16 *dIn = toDevice(logits), *dOut;
    CK(cudaMalloc(&dOut, logits.size() * sizeof(__nv_bfloat16)));
    launchSoftmax(dIn, dOut, rows, cols);
    auto probs = fromDevice(dOut, logits.size());
    std::vector<float> ref(logits.size());
    double rowSumErr = 0;
    for (int r = 0; r < rows; ++r) {
        float m = -INFINITY;
        for (int c = 0; c < cols; ++c) m = std::max(m, __bfloat162float(logits[size_t(r) * cols + c]));
        double s = 0;
        for (int c = 0; c < cols; ++c) s += std::exp(double(__bfloat162float(logits[size_t(r) * cols + c])) - m);
        double devSum = 0;
        for (int c = 0; c < cols; ++c) {
            ref[size_t(r) * cols + c] =
                float(std::exp(double(__bfloat162float(logits[size_t(r) * cols + c])) - m) / s);
            devSum += __bfloat162float(probs[size_t(r) * cols + c]);
        }
        rowSumErr = std::max(rowSumErr, std::fabs(devSum - 1.0));
    }
    size_t softBad = outside(probs, ref, 1e-6f, 0.01f);
    printf("softmax bf16   : %zu of %zu outside tolerance, row sums within %s of 1\n", softBad,
           ref.size(), rowSumErr < 0.02 ? "0.02" : "MORE THAN 0.02");
    bad += softBad + (rowSumErr >= 0.02);

    bad += checkLayerNorm<__half>(rows, cols, "half");
    bad += checkLayerNorm<__nv_bfloat16>(rows, cols, "bf16");

    // Bias + GELU in place on bf16 pairs.
    auto act = randomVector<__nv_bfloat16>(size_t(rows) * cols, 4.f);
    auto bias = randomVector<__nv_bfloat16>(cols, 0.5f);
    __nv_bfloat16 *dAct = toDevice(act), *dBias = toDevice(bias);
    launchBiasGelu(reinterpret_cast<__nv_bfloat162 *>(dAct),
                   reinterpret_cast<const __nv_bfloat162 *>(dBias), rows, cols / 2);
    auto gel = fromDevice(dAct, act.size());
    for (size_t i = 0; i < act.size(); ++i) {
        float v = __bfloat162float(__float2bfloat16_rn(__bfloat162float(act[i]) +
                                                       __bfloat162float(bias[i % cols])));
        ref[i] = float(0.5 * v * (1 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v))));
    }
    size_t geluBad = outside(gel, ref, 0.01f, 0.01f);
    printf("bias+gelu bf16 : %zu of %zu outside tolerance\n", geluBad, ref.size());
    bad += geluBad;

    // GEMV with bf16 weights.
    auto w = randomVector<__nv_bfloat16>(size_t(rows) * cols, 1.f);
    std::vector<float> x(cols);
    for (auto &v : x) v = rnd();
    __nv_bfloat16 *dW = toDevice(w);
    float *dX = toDevice(x), *dY;
    CK(cudaMalloc(&dY, rows * sizeof(float)));
    launchGemv(dW, dX, dY, rows, cols);
    auto y = fromDevice(dY, rows);
    std::vector<float> yRef(rows);
    for (int r = 0; r < rows; ++r) {
        double acc = 0;
        for (int c = 0; c < cols; ++c) acc += double(__bfloat162float(w[size_t(r) * cols + c])) * x[c];
        yRef[r] = float(acc);
    }
    size_t gemvBad = outside(y, yRef, 1e-3f, 1e-4f);
    printf("gemv bf16xf32  : %zu of %d outside tolerance\n", gemvBad, rows);
    bad += gemvBad;
    for (void *p : {(void *)dIn, (void *)dOut, (void *)dAct, (void *)dBias, (void *)dW, (void *)dX,
                    (void *)dY})
        CK(cudaFree(p));
    printf("rows %d, features %d\n", rows, cols);
    printf("transformer_ops: %s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
