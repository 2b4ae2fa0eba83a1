// The host reference of black_scholes_fp64: the shared formula in double, one option at a time.
#include "pricing.h"

void blackScholesHost(double *call, double *put, const double *s, const double *x, const double *t,
                      double r, double v, int n) {
    for (int i = 0; i < n; ++i) blackScholes(call[i], put[i], s[i], x[i], t[i], r, v);
}
