// Binomial-lattice pricing of European calls: the option data, the host reference
// (binomial_gold.cpp.h) and the device entry point (binomial_kernel.cu).
#pragma once

struct OptionData {
    double spot, strike, years, rate, volatility;
};

// The lattice's per-option constants: up/down step factors and the discounted probabilities.
template <typename Real>
struct LatticeStep {
    Real vDt, puByDf, pdByDf;
};

template <typename Real>
LatticeStep<Real> latticeStep(const OptionData &o, int steps);

// Prices every option on the device with `steps` lattice steps, in Real arithmetic.
template <typename Real>
void binomialOnDevice(const OptionData *options, int count, int steps, double *prices);
