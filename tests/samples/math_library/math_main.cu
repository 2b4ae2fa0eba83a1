// The CUDA math library on the device against the host's: about fifty float and double
// functions of CUDA's Math API (error functions and their inverses, gamma functions, Bessel
// functions, roots, exponentials and logarithms, trigonometry with huge arguments, the fast
// intrinsics __expf, __logf, __sinf, __cosf, __powf, __fdividef) are evaluated over their
// domains and special values, and every result is checked against a higher-precision host
// reference (double for float functions, x87 long double for double ones) within the maximum
// error CUDA documents. Each function's line prints the largest error in ulps and a hash of
// the result bits, so two runs of the program (two devices) can be compared bit for bit.
// Default: 32768 arguments per function (argument: the count).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include "functions.h"
#include "../common/helpers.h"

typedef long double ld;
static const ld kPi = 3.141592653589793238462643383279502884L;

// Inverse of a increasing function by bisection in long double.
template <typename F> static ld invert(F f, ld y, ld lo, ld hi) {
    for (int i = 0; i < 200 && lo < hi; ++i) {
        ld mid = (lo + hi) / 2;
        if (mid == lo || mid == hi) break;
        (f(mid) < y ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}
static ld erfinv_l(ld y) {
    if (std::isnan(y) || y < -1 || y > 1) return NAN;
    if (y == 0) return y; // signed zero
    if (y == 1 || y == -1) return y * INFINITY;
    return invert([](ld x) { return erfl(x); }, y, -10, 10);
}
static ld normcdf_l(ld x) { return erfcl(-x / sqrtl(2.0L)) / 2; }
static ld normcdfinv_l(ld p) {
    if (std::isnan(p) || p < 0 || p > 1) return NAN;
    if (p == 0 || p == 1) return p == 0 ? -INFINITY : INFINITY;
    return invert(normcdf_l, p, -45, 12);
}
// sin(pi x) and cos(pi x) as sinl of an exactly reduced argument in [-1/2, 1/2], where pi times
// it loses nothing to cancellation near the zeros.
static ld sinpi_l(ld x) {
    if (!std::isfinite(x)) return NAN;
    ld r = x - 2 * nearbyintl(x / 2); // exact, in [-1, 1]
    if (r == 0) return x * 0;          // signed zero
    if (r > 0.5L) r = 1 - r;
    else if (r < -0.5L) r = -1 - r;
    return sinl(kPi * r);
}
static ld cospi_l(ld x) {
    if (!std::isfinite(x)) return NAN;
    ld a = fabsl(fabsl(x) - 2 * nearbyintl(fabsl(x) / 2)); // in [0, 1]
    return sinl(kPi * (0.5L - a));
}
static ld i0_l(ld x) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return INFINITY;
    ld term = 1, sum = 1, q = x * x / 4;
    for (int k = 1; k < 400 && term > sum * 1e-22L; ++k) sum += term *= q / (ld(k) * k);
    return sum;
}

// Host references, named in functions.h's lists.
static ld ref_erf(ld x) { return erfl(x); }
static ld ref_erfc(ld x) { return erfcl(x); }
static ld ref_erfinv(ld x) { return erfinv_l(x); }
static ld ref_erfcx(ld x) { return std::isinf(x) ? (x > 0 ? 0 : INFINITY) : expl(x * x) * erfcl(x); }
static ld ref_normcdf(ld x) { return normcdf_l(x); }
static ld ref_normcdfinv(ld x) { return normcdfinv_l(x); }
static ld ref_lgamma(ld x) { return lgammal(x); }
static ld ref_tgamma(ld x) { return tgammal(x); }
static ld ref_cbrt(ld x) { return cbrtl(x); }
static ld ref_rcbrt(ld x) { return 1 / cbrtl(x); }
static ld ref_expm1(ld x) { return expm1l(x); }
static ld ref_log1p(ld x) { return log1pl(x); }
static ld ref_log2(ld x) { return log2l(x); }
static ld ref_exp10(ld x) { return powl(10, x); }
static ld ref_asinh(ld x) { return asinhl(x); }
static ld ref_acosh(ld x) { return acoshl(x); }
static ld ref_atanh(ld x) { return atanhl(x); }
static ld ref_sin(ld x) { return sinl(x); }
static ld ref_cos(ld x) { return cosl(x); }
static ld ref_tan(ld x) { return tanl(x); }
static ld ref_sinpi(ld x) { return sinpi_l(x); }
static ld ref_cospi(ld x) { return cospi_l(x); }
static ld ref_j0(ld x) { return j0l(x); }
static ld ref_j1(ld x) { return j1l(x); }
static ld ref_y0(ld x) { return y0l(x); }
static ld ref_i0(ld x) { return i0_l(x); }
static ld ref_exp(ld x) { return expl(x); }
static ld ref_log(ld x) { return logl(x); }
static ld ref_rsqrt(ld x) { return 1 / sqrtl(x); }
static ld ref_pow(ld x, ld y) { return powl(x, y); }
static ld ref_atan2(ld x, ld y) { return atan2l(x, y); }
static ld ref_hypot(ld x, ld y) { return hypotl(x, y); }
static ld ref_fmod(ld x, ld y) { return fmodl(x, y); }
static ld ref_remainder(ld x, ld y) { return remainderl(x, y); }
static ld ref_div(ld x, ld y) { return x / y; }
#define refl_erf ref_erf
#define refl_erfinv ref_erfinv
#define refl_lgamma ref_lgamma
#define refl_tgamma ref_tgamma
#define refl_exp ref_exp
#define refl_log ref_log
#define refl_sin ref_sin
#define refl_cos ref_cos
#define refl_cbrt ref_cbrt
#define refl_sinpi ref_sinpi
#define refl_j0 ref_j0
#define refl_rsqrt ref_rsqrt
#define refl_pow ref_pow
#define refl_atan2 ref_atan2

struct Entry {
    const char *name;
    ld (*unary)(ld);
    ld (*binary)(ld, ld);
    double lo, hi, ylo, yhi, ulps, abs;
};
#define UNARY_ENTRY(fn, ref, lo, hi, ylo, yhi, ulps, abs) {#fn, ref, nullptr, lo, hi, ylo, yhi, ulps, abs},
#define BINARY_ENTRY(fn, ref, lo, hi, ylo, yhi, ulps, abs) {#fn, nullptr, ref, lo, hi, ylo, yhi, ulps, abs},
static const Entry kFloat[] = {FLOAT_UNARY(UNARY_ENTRY) FLOAT_BINARY(BINARY_ENTRY)};
static const Entry kDouble[] = {DOUBLE_UNARY(UNARY_ENTRY) DOUBLE_BINARY(BINARY_ENTRY)};

// Arguments in [lo, hi]: log-uniform for wide positive ranges, else uniform; the first ones
// are the range's ends and (for all but the fast intrinsics) zeros, infinities and NaN.
static std::vector<double> arguments(Lcg &rng, double lo, double hi, int n, bool specials) {
    std::vector<double> v;
    if (specials) v = {lo, hi, 0.0, -0.0, INFINITY, -INFINITY, NAN};
    else v = {lo, hi};
    bool logScale = lo > 0 && hi / lo > 1e4;
    while (int(v.size()) < n) {
        double u = (double(rng.next()) * 4294967296.0 + rng.next()) / 18446744073709551616.0;
        v.push_back(logScale ? lo * std::pow(hi / lo, u) : lo + (hi - lo) * u);
    }
    return v;
}

// Error of r against ref in units in the last place of T at ref (0 when both are NaN or equal).
template <typename T> static double ulpError(T r, ld ref) {
    if (std::isnan(r) && std::isnan(ref)) return 0;
    T rounded = T(ref);
    if (std::isnan(r) || std::isnan(ref) || std::isinf(r) || std::isinf(rounded)) return r == rounded ? 0 : INFINITY;
    if (ld(r) == ref) return 0;
    int e;
    frexpl(ref, &e);
    const int digits = std::numeric_limits<T>::digits, minExp = std::numeric_limits<T>::min_exponent - digits;
    ld ulp = ldexpl(1, std::max(e - digits, minExp));
    return double(fabsl(ld(r) - ref) / ulp);
}

template <typename T> static uint32_t hashBits(const std::vector<T> &v) {
    uint32_t h = 2166136261u;
    for (T x : v) {
        unsigned char b[sizeof(T)];
        std::memcpy(b, &x, sizeof(T));
        for (unsigned char c : b) h = (h ^ c) * 16777619u;
    }
    return h;
}

// Evaluates every function of one list on the device and checks it; returns the failures.
template <typename T, int Count>
static int checkAll(const Entry (&list)[Count], void (*run)(int, const T *, const T *, T *, int), int n, Lcg &rng) {
    T *dx, *dy, *dout;
    checkCudaErrors(cudaMalloc(&dx, n * sizeof(T)));
    checkCudaErrors(cudaMalloc(&dy, n * sizeof(T)));
    checkCudaErrors(cudaMalloc(&dout, n * sizeof(T)));
    int failures = 0;
    for (int id = 0; id < Count; ++id) {
        const Entry &e = list[id];
        bool intrinsic = e.name[0] == '_';
        std::vector<double> xs = arguments(rng, e.lo, e.hi, n, !intrinsic), ys(n, 0.0);
        if (e.binary) ys = arguments(rng, e.ylo, e.yhi, n, false);
        std::vector<T> x(xs.begin(), xs.end()), y(ys.begin(), ys.end()), out(n);
        checkCudaErrors(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        checkCudaErrors(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
        run(id, dx, dy, dout, n);
        checkCudaErrors(cudaMemcpy(out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
        double worst = 0;
        int bad = 0, firstBad = -1;
        for (int i = 0; i < n; ++i) {
            ld ref = e.unary ? e.unary(x[i]) : e.binary(x[i], y[i]);
            double err = ulpError(out[i], ref);
            bool within = err <= e.ulps || (std::isfinite(ref) && fabsl(ld(out[i]) - ref) <= e.abs);
            if (!within && bad++ == 0) firstBad = i;
            if (err > worst && within) worst = err;
        }
        printf("%-16s %6d values  max error %7.1f ulp  hash %08x  %s\n", e.name, n, worst, hashBits(out),
               bad ? "OUTSIDE BOUND" : "ok");
        if (bad) {
            int i = firstBad;
            printf("  %d outside %.0f ulp; first: f(%.9g, %.9g) = %.17g, reference %.17Lg\n", bad, e.ulps,
                   double(x[i]), double(y[i]), double(out[i]), e.unary ? e.unary(x[i]) : e.binary(x[i], y[i]));
            ++failures;
        }
    }
    checkCudaErrors(cudaFree(dx));
    checkCudaErrors(cudaFree(dy));
    checkCudaErrors(cudaFree(dout));
    return failures;
}

int main(int argc, char **argv) {
    const int n = std::max(16, sizeArg(argc, argv, 32768));
    Lcg rng(314159);
    int failures = checkAll<float>(kFloat, run_float, n, rng);
    failures += checkAll<double>(kDouble, run_double, n, rng);
    printf("%d functions, %d outside CUDA's documented bounds\n",
           int(sizeof kFloat / sizeof kFloat[0] + sizeof kDouble / sizeof kDouble[0]), failures);
    return finish("math_library", failures == 0);
}
