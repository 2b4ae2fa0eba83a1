// The host reference of the Black-Scholes formula, in double precision.
#pragma once
#include <cmath>

static double cndHost(double d) {
    const double A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937, A4 = -1.821255978, A5 = 1.330274429,
                 RSQRT2PI = 0.39894228040143267793994605993438;
    double K = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double cnd = RSQRT2PI * exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0 - cnd : cnd;
}

static void blackScholesHost(double &call, double &put, double s, double x, double t, double r, double v) {
    double sqrtT = sqrt(t);
    double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrtT), d2 = d1 - v * sqrtT;
    double expRT = exp(-r * t);
    call = s * cndHost(d1) - x * expRT * cndHost(d2);
    put = x * expRT * (1.0 - cndHost(d2)) - s * (1.0 - cndHost(d1));
}
