// Monte-Carlo pricing of European calls with cuRAND's device API (mc_kernels.cu), checked
// against the Black-Scholes closed form on the host: each estimate must lie within four
// standard errors of the exact price, and a second pass continuing the XORWOW streams must
// agree with the first within the same bound. Default: 64 options x 2^18 paths per generator
// kind (the first argument: log2 of the paths per option, at least 16).
#include <cmath>
#include <vector>
#include "../common/helpers.h"
#include "options.h"

static double normalCdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static double blackScholesCall(const Option &o) {
    double s = o.spot, k = o.strike, t = o.years, r = o.rate, v = o.volatility;
    double d1 = (log(s / k) + (r + 0.5 * v * v) * t) / (v * sqrt(t));
    double d2 = d1 - v * sqrt(t);
    return s * normalCdf(d1) - k * exp(-r * t) * normalCdf(d2);
}

static int checkAgainstClosedForm(const char *what, const std::vector<Option> &options,
                                  const std::vector<Estimate> &estimates) {
    int outside = 0;
    double worst = 0;
    for (size_t i = 0; i < options.size(); ++i) {
        double exact = blackScholesCall(options[i]);
        double sigmas = fabs(estimates[i].call - exact) / (estimates[i].stdError + 1e-9);
        worst = fmax(worst, sigmas);
        if (sigmas > 4.0) {
            ++outside;
            printf("  option %zu: Monte Carlo %.5f, closed form %.5f (%.1f standard errors)\n", i,
                   estimates[i].call, exact, sigmas);
        }
    }
    printf("%s: %zu options, %d outside 4 standard errors\n", what, options.size(), outside);
    return outside;
}

int main(int argc, char **argv) {
    int log2Paths = sizeArg(argc, argv, 18);
    if (log2Paths < 16 || log2Paths > 24) {
        fprintf(stderr, "mc_options: log2 paths %d outside 16..24\n", log2Paths);
        return EXIT_FAILURE;
    }
    const int count = 64, paths = 1 << log2Paths;
    std::vector<Option> options(count);
    Lcg rng(31);
    for (auto &o : options) {
        o.spot = 5.0f + 25.0f * rng.uniform();
        o.strike = o.spot * (0.8f + 0.4f * rng.uniform());  // near the money: no rare-event payoffs
        o.years = 0.25f + 1.75f * rng.uniform();
        o.rate = 0.02f + 0.04f * rng.uniform();
        o.volatility = 0.10f + 0.30f * rng.uniform();
    }
    checkCudaErrors(cudaSetDevice(0));
    std::vector<Estimate> first(count), second(count), quad(count);
    priceOnDevice(Generator::Xorwow, options.data(), count, paths, first.data());
    priceOnDevice(Generator::Xorwow, options.data(), count, paths, second.data());
    priceOnDevice(Generator::Philox, options.data(), count, paths, quad.data());
    checkCudaErrors(cudaDeviceSynchronize());
    releaseGenerators();

    int bad = checkAgainstClosedForm("XORWOW curand_normal", options, first);
    bad += checkAgainstClosedForm("XORWOW continued", options, second);
    bad += checkAgainstClosedForm("Philox4x32-10 curand_normal4", options, quad);
    int disagree = 0;
    for (int i = 0; i < count; ++i) {
        double bound = 4.0 * sqrt(first[i].stdError * first[i].stdError + second[i].stdError * second[i].stdError);
        disagree += fabs(first[i].call - second[i].call) > bound + 1e-9;
        disagree += first[i].call == second[i].call && first[i].stdError > 0;  // streams must advance
    }
    printf("passes over continued streams: %d of %d options disagree\n", disagree, count);
    return finish("mc_options", bad == 0 && disagree == 0);
}
