// Black-Scholes in double precision over 4,000,000 options (CUDA's BlackScholes sample's size),
// 4 iterations, against the host in double: the L1 relative error of calls and puts must stay
// under 1e-13 and the worst absolute error under 1e-10, and put-call parity must hold to 1e-9.
// The first argument: the option count.
#include <cmath>
#include <vector>
#include "../common/helpers.h"
#include "pricing.h"

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 4000000);
    if (n < 1 || n > 64000000) {
        fprintf(stderr, "black_scholes_fp64: option count %d outside 1..64000000\n", n);
        return EXIT_FAILURE;
    }
    const double rate = 0.02, volatility = 0.30;
    std::vector<double> s(n), x(n), t(n), call(n), put(n), refCall(n), refPut(n);
    Lcg rng(5347);
    for (int i = 0; i < n; ++i) {
        s[i] = 5.0 + 25.0 * rng.uniform();
        x[i] = 1.0 + 99.0 * rng.uniform();
        t[i] = 0.25 + 9.75 * rng.uniform();
    }
    checkCudaErrors(cudaSetDevice(0));
    blackScholesDevice(call.data(), put.data(), s.data(), x.data(), t.data(), rate, volatility, n, 4);
    blackScholesHost(refCall.data(), refPut.data(), s.data(), x.data(), t.data(), rate, volatility, n);

    double sumDiff = 0, sumRef = 0, worst = 0, worstParity = 0;
    for (int i = 0; i < n; ++i) {
        double dc = fabs(call[i] - refCall[i]), dp = fabs(put[i] - refPut[i]);
        sumDiff += dc + dp;
        sumRef += fabs(refCall[i]) + fabs(refPut[i]);
        worst = fmax(worst, fmax(dc, dp));
        double parity = call[i] - put[i] - (s[i] - x[i] * exp(-rate * t[i]));
        worstParity = fmax(worstParity, fabs(parity));
    }
    double l1 = sumDiff / sumRef;
    bool ok = l1 < 1e-13 && worst < 1e-10 && worstParity < 1e-9;
    printf("%d options: L1 relative error %s 1e-13, worst absolute %s 1e-10, put-call parity %s 1e-9\n", n,
           l1 < 1e-13 ? "below" : "ABOVE", worst < 1e-10 ? "below" : "ABOVE", worstParity < 1e-9 ? "within" : "BEYOND");
    if (!ok) printf("  L1 %.3e, worst %.3e, parity %.3e\n", l1, worst, worstParity);
    return finish("black_scholes_fp64", ok);
}
