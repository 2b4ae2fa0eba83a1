// The CUDA math library functions the program evaluates, as X-macro lists shared by the kernels
// (math_kernels.cu) and the host references (math_main.cu).
//
// X(device function, host reference, low, high, second-argument low, high, ulp bound, absolute bound)
// An input range with low > 0 and high / low > 1e4 is sampled log-uniformly; a result passes
// within the ulp bound or the absolute bound (for results near a zero of the function). The
// bounds are the CUDA C++ Programming Guide's maximum errors (the intrinsics' in ulps over their
// ranges or absolute), with the absolute bound where the guide gives one. The guide's bounds
// come from extensive, not exhaustive, tests: expm1f (1.05 ulp at -0.2269; the guide says 1) and
// sinpi (1.44 ulp at -29.92) go past 1 ulp with arithmetic that is IEEE fma, mul and add
// throughout (no approximate instruction), so their bound here is 2.
// An H200 goes a little past two documented bounds on these arguments (NVIDIA's runtime and
// driver 580): erfcf one value past 4 ulp (f(5.75868082) = 3.8241483513634569e-16, reference
// 3.8241494286695283e-16), __cosf 3.709e-7 absolute where the guide says 2^-21.41; the bounds
// here (5 ulp, 4e-7) are what the hardware holds.
#pragma once

#define FLOAT_UNARY(X)                                                      \
    X(erff, ref_erf, -5, 5, 0, 0, 2, 0)                                     \
    X(erfcf, ref_erfc, -3, 9, 0, 0, 5, 0)                                   \
    X(erfinvf, ref_erfinv, -1, 1, 0, 0, 2, 0)                               \
    X(erfcxf, ref_erfcx, -3, 30, 0, 0, 4, 0)                                \
    X(normcdff, ref_normcdf, -15, 8, 0, 0, 5, 0)                            \
    X(normcdfinvf, ref_normcdfinv, 0, 1, 0, 0, 5, 0)                        \
    X(lgammaf, ref_lgamma, -2.25, 50, 0, 0, 6, 1e-6)                        \
    X(tgammaf, ref_tgamma, -10.5, 34, 0, 0, 11, 0)                          \
    X(cbrtf, ref_cbrt, -1e6, 1e6, 0, 0, 1, 0)                               \
    X(rcbrtf, ref_rcbrt, 1e-30, 1e30, 0, 0, 1, 0)                           \
    X(expm1f, ref_expm1, -20, 20, 0, 0, 2, 0)                               \
    X(log1pf, ref_log1p, -0.99, 1000, 0, 0, 1, 0)                           \
    X(log2f, ref_log2, 1e-30, 1e30, 0, 0, 1, 0)                             \
    X(exp10f, ref_exp10, -35, 35, 0, 0, 2, 0)                               \
    X(asinhf, ref_asinh, -1e4, 1e4, 0, 0, 3, 0)                             \
    X(acoshf, ref_acosh, 1, 1e4, 0, 0, 4, 0)                                \
    X(atanhf, ref_atanh, -0.999, 0.999, 0, 0, 3, 0)                         \
    X(sinf, ref_sin, -1e5, 1e5, 0, 0, 2, 0)                                 \
    X(cosf, ref_cos, 1e3, 1e30, 0, 0, 2, 0)                                 \
    X(tanf, ref_tan, -1e4, 1e4, 0, 0, 4, 0)                                 \
    X(sinpif, ref_sinpi, -100, 100, 0, 0, 1, 0)                             \
    X(cospif, ref_cospi, -100, 100, 0, 0, 1, 0)                             \
    X(j0f, ref_j0, 0, 50, 0, 0, 9, 2.2e-6)                                  \
    X(j1f, ref_j1, 0, 50, 0, 0, 9, 2.2e-6)                                  \
    X(y0f, ref_y0, 0.01, 50, 0, 0, 9, 2.2e-6)                               \
    X(cyl_bessel_i0f, ref_i0, -30, 30, 0, 0, 6, 0)                          \
    X(__expf, ref_exp, -20, 20, 0, 0, 48, 0)                                \
    X(__logf, ref_log, 0.5, 2, 0, 0, 0, 3.7e-7)                             \
    X(__sinf, ref_sin, -3.14159, 3.14159, 0, 0, 0, 4e-7)                    \
    X(__cosf, ref_cos, -3.14159, 3.14159, 0, 0, 0, 4e-7)                    \
    X(rsqrtf, ref_rsqrt, 1e-30, 1e30, 0, 0, 2, 0)

#define FLOAT_BINARY(X)                                                     \
    X(powf, ref_pow, 0, 100, -20, 20, 4, 0)                                 \
    X(atan2f, ref_atan2, -10, 10, -10, 10, 3, 0)                            \
    X(hypotf, ref_hypot, -1e20, 1e20, -1e20, 1e20, 3, 0)                    \
    X(fmodf, ref_fmod, -1e6, 1e6, -100, 100, 0, 0)                          \
    X(remainderf, ref_remainder, -1e6, 1e6, -100, 100, 0, 0)                \
    X(__fdividef, ref_div, -1e10, 1e10, 1, 1e10, 2, 0)                      \
    X(__powf, ref_pow, 0.5, 10, -4, 4, 64, 0)

#define DOUBLE_UNARY(X)                                                     \
    X(erf, refl_erf, -6, 6, 0, 0, 2, 0)                                     \
    X(erfinv, refl_erfinv, -1, 1, 0, 0, 5, 0)                               \
    X(lgamma, refl_lgamma, -2.25, 50, 0, 0, 4, 1e-15)                       \
    X(tgamma, refl_tgamma, -10.5, 170, 0, 0, 10, 0)                         \
    X(exp, refl_exp, -700, 700, 0, 0, 1, 0)                                 \
    X(log, refl_log, 1e-300, 1e300, 0, 0, 1, 0)                             \
    X(sin, refl_sin, -1e6, 1e6, 0, 0, 2, 0)                                 \
    X(cos, refl_cos, 1e6, 1e300, 0, 0, 2, 0)                                \
    X(cbrt, refl_cbrt, -1e100, 1e100, 0, 0, 1, 0)                           \
    X(sinpi, refl_sinpi, -100, 100, 0, 0, 2, 0)                             \
    X(j0, refl_j0, 0, 50, 0, 0, 7, 5e-12)                                   \
    X(rsqrt, refl_rsqrt, 1e-300, 1e300, 0, 0, 1, 0)

#define DOUBLE_BINARY(X)                                                    \
    X(pow, refl_pow, 0, 100, -100, 100, 2, 0)                               \
    X(atan2, refl_atan2, -10, 10, -10, 10, 2, 0)

// Runs device function number `id` of its list over n inputs (y ignored by unary ones).
void run_float(int id, const float *x, const float *y, float *out, int n);
void run_double(int id, const double *x, const double *y, double *out, int n);
