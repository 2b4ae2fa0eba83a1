// Binomial-lattice pricing of European calls (CUDA's binomialOptions): 256 options on a
// 2048-step lattice, in double and in float on the device, against the same lattice in double
// on the host (double: within 1e-9 relative; float: within 2e-4 relative, or absolute under a
// price of 1) and against Black-Scholes (the lattice converges to it: within 5e-3 absolute).
// The first argument: the option count.
#include <cmath>
#include <vector>
#include "../common/helpers.h"
#include "binomial.h"
#include "binomial_gold.cpp.h"

static double normalCdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static double blackScholesCall(const OptionData &o) {
    double sq = o.volatility * sqrt(o.years);
    double d1 = (log(o.spot / o.strike) + (o.rate + 0.5 * o.volatility * o.volatility) * o.years) / sq;
    return o.spot * normalCdf(d1) - o.strike * exp(-o.rate * o.years) * normalCdf(d1 - sq);
}

int main(int argc, char **argv) {
    const int steps = 2048;
    int count = sizeArg(argc, argv, 256);
    if (count < 1 || count > 65535) {
        fprintf(stderr, "binomial_options: option count %d outside 1..65535\n", count);
        return EXIT_FAILURE;
    }
    std::vector<OptionData> options(count);
    Lcg rng(5347);
    for (auto &o : options) {
        o.spot = 5.0 + 25.0 * rng.uniform();
        o.strike = 1.0 + 99.0 * rng.uniform();
        o.years = 0.25 + 9.75 * rng.uniform();
        o.rate = 0.06;
        o.volatility = 0.10;
    }
    checkCudaErrors(cudaSetDevice(0));
    std::vector<double> gpuDouble(count), gpuFloat(count);
    binomialOnDevice<double>(options.data(), count, steps, gpuDouble.data());
    binomialOnDevice<float>(options.data(), count, steps, gpuFloat.data());

    double worstDouble = 0, worstFloat = 0;
    int bad = 0;
    for (int i = 0; i < count; ++i) {
        double host = binomialOnHost(options[i], steps), closed = blackScholesCall(options[i]);
        double relDouble = fabs(gpuDouble[i] - host) / fmax(fabs(host), 1e-3);
        double absFloat = fabs(gpuFloat[i] - host);
        worstDouble = fmax(worstDouble, relDouble);
        worstFloat = fmax(worstFloat, absFloat / fmax(host, 1.0));
        bool ok = relDouble < 1e-9 && absFloat < 2e-4 * fmax(host, 1.0) && fabs(host - closed) < 5e-3;
        if (!ok && bad++ < 5)
            printf("  option %d: device double %.8f, device float %.6f, host %.8f, Black-Scholes %.6f\n", i,
                   gpuDouble[i], gpuFloat[i], host, closed);
    }
    printf("binomial %d steps, %d options: %d outside the bounds (double %s 1e-9, float %s 2e-4)\n", steps,
           count, bad, worstDouble < 1e-9 ? "within" : "beyond", worstFloat < 2e-4 ? "within" : "beyond");
    return finish("binomial_options", bad == 0);
}
