// Jacobi relaxation on a 512 x 512 grid in one cooperative kernel (jacobi_kernel.cu) until a
// sweep changes no cell by 1e-6, checked against the host running the same sweeps in float:
// the device must stop within one sweep of the host, the two final iterates must agree to 1e-5,
// and the residual of the discrete equations must be small. The first argument: N.
#include <cmath>
#include <vector>
#include "../common/helpers.h"
#include "jacobi.h"

static int jacobiOnHost(const std::vector<float> &f, std::vector<float> &u, int n, float tolerance, int maxSweeps) {
    std::vector<float> next(u.size());
    const float inverse = 1.0f / (4.0f + SCREEN);
    for (int sweep = 1; sweep <= maxSweeps; ++sweep) {
        float change = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                int c = i * n + j;
                float up = i > 0 ? u[c - n] : 0.0f, down = i + 1 < n ? u[c + n] : 0.0f;
                float left = j > 0 ? u[c - 1] : 0.0f, right = j + 1 < n ? u[c + 1] : 0.0f;
                next[c] = (f[c] + ((up + down) + (left + right))) * inverse;
                change = std::fmax(change, std::fabs(next[c] - u[c]));
            }
        u.swap(next);
        if (change < tolerance) return sweep;
    }
    return maxSweeps;
}

int main(int argc, char **argv) {
    int n = sizeArg(argc, argv, 512);
    if (n < 2 || n > 8192) {
        fprintf(stderr, "jacobi_coop: N %d outside 2..8192\n", n);
        return EXIT_FAILURE;
    }
    const float tolerance = 1e-6f;
    const int maxSweeps = 2000;
    std::vector<float> f((size_t)n * n), device((size_t)n * n), host((size_t)n * n, 0.0f);
    Lcg rng(11);
    for (auto &v : f) v = rng.uniform() - 0.25f;

    checkCudaErrors(cudaSetDevice(0));
    int deviceSweeps = jacobiOnDevice(f.data(), device.data(), n, tolerance, maxSweeps);
    int hostSweeps = jacobiOnHost(f, host, n, tolerance, maxSweeps);

    double worstDiff = 0, worstResidual = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            int c = i * n + j;
            worstDiff = std::fmax(worstDiff, std::fabs(device[c] - host[c]));
            double around = (i > 0 ? device[c - n] : 0.0) + (i + 1 < n ? device[c + n] : 0.0) +
                            (j > 0 ? device[c - 1] : 0.0) + (j + 1 < n ? device[c + 1] : 0.0);
            worstResidual = std::fmax(worstResidual, std::fabs((4.0 + SCREEN) * device[c] - around - f[c]));
        }
    bool sweepsOk = abs(deviceSweeps - hostSweeps) <= 1 && deviceSweeps < maxSweeps;
    bool ok = sweepsOk && worstDiff < 1e-5 && worstResidual < 1e-4;
    printf("Jacobi %dx%d: stopped %s the host, iterates %s 1e-5, residual %s 1e-4\n", n, n,
           sweepsOk ? "with" : "APART FROM", worstDiff < 1e-5 ? "within" : "BEYOND",
           worstResidual < 1e-4 ? "below" : "ABOVE");
    if (!ok)
        printf("  device %d sweeps, host %d, difference %.3e, residual %.3e\n", deviceSweeps, hostSweeps, worstDiff,
               worstResidual);
    return finish("jacobi_coop", ok);
}
