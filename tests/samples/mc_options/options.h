// European options priced by Monte Carlo (mc_kernels.cu) and in closed form (main.cu).
#pragma once

struct Option {
    float spot, strike, years, rate, volatility;
};

// One option's Monte-Carlo estimate: the discounted mean payoff and its standard error.
struct Estimate {
    double call, stdError;
};

// Generator kinds: XORWOW (curand_normal, one path a draw) and Philox4x32-10 (curand_normal4,
// four paths a draw), each with its states in global memory.
enum class Generator { Xorwow, Philox };

// Prices `count` options with `paths` paths each; states persist across calls of a generator.
void priceOnDevice(Generator generator, const Option *options, int count, int paths, Estimate *out);
void releaseGenerators();
