// The host reference: the same backward induction over the lattice in double precision, and the
// step constants both sides use.
#pragma once
#include <cmath>
#include <vector>
#include "binomial.h"

template <typename Real>
LatticeStep<Real> latticeStep(const OptionData &o, int steps) {
    double dt = o.years / steps;
    double vDt = o.volatility * sqrt(dt);
    double rDt = o.rate * dt;
    double If = exp(rDt), Df = exp(-rDt);
    double u = exp(vDt), d = exp(-vDt);
    double pu = (If - d) / (u - d), pd = 1.0 - pu;
    return {(Real)vDt, (Real)(pu * Df), (Real)(pd * Df)};
}

inline double binomialOnHost(const OptionData &o, int steps) {
    LatticeStep<double> k = latticeStep<double>(o, steps);
    std::vector<double> v(steps + 1);
    for (int i = 0; i <= steps; ++i) {
        double s = o.spot * exp(k.vDt * (2.0 * i - steps));
        v[i] = s - o.strike > 0 ? s - o.strike : 0;
    }
    for (int i = steps; i > 0; --i)
        for (int j = 0; j < i; ++j) v[j] = k.puByDf * v[j + 1] + k.pdByDf * v[j];
    return v[0];
}
