// Black-Scholes in double precision: the formula both sides share (cumulative normal by the
// Abramowitz-Stegun polynomial, as CUDA's BlackScholes sample writes it) and the entry points.
#pragma once
#include <cmath>

#ifdef __CUDACC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif

template <typename Real>
HOST_DEVICE inline Real cumulativeNormal(Real d) {
    const Real A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937, A4 = -1.821255978, A5 = 1.330274429;
    const Real RSQRT2PI = 0.39894228040143267793994605993438;
    Real k = Real(1) / (Real(1) + Real(0.2316419) * fabs(d));
    Real cnd = RSQRT2PI * exp(Real(-0.5) * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0 ? Real(1) - cnd : cnd;
}

template <typename Real>
HOST_DEVICE inline void blackScholes(Real &call, Real &put, Real s, Real x, Real t, Real r, Real v) {
    Real sqrtT = sqrt(t);
    Real d1 = (log(s / x) + (r + Real(0.5) * v * v) * t) / (v * sqrtT);
    Real d2 = d1 - v * sqrtT;
    Real cndD1 = cumulativeNormal(d1), cndD2 = cumulativeNormal(d2);
    Real expRT = exp(-r * t);
    call = s * cndD1 - x * expRT * cndD2;
    put = x * expRT * (Real(1) - cndD2) - s * (Real(1) - cndD1);
}

// Host reference (gold.cu) and device pricing (kernel.cu), over structure-of-arrays inputs.
void blackScholesHost(double *call, double *put, const double *s, const double *x, const double *t,
                      double r, double v, int n);
void blackScholesDevice(double *call, double *put, const double *s, const double *x, const double *t,
                        double r, double v, int n, int iterations);
