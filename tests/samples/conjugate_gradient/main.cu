// Conjugate gradient on a shifted 2D Poisson problem (default grid 384 x 384, 147,456 unknowns) in
// double precision: the device solve against the same iteration on the host, compared by
// iteration count, final residual and solution error.
#include <cmath>
#include "solver.h"

CsrMatrix poisson2d(int g, double shift) {
    CsrMatrix a;
    a.rows = g * g;
    a.rowPtr.push_back(0);
    for (int y = 0; y < g; ++y)
        for (int x = 0; x < g; ++x) {
            auto add = [&](int c, double v) { a.cols.push_back(c), a.vals.push_back(v); };
            if (y > 0) add((y - 1) * g + x, -1);
            if (x > 0) add(y * g + x - 1, -1);
            add(y * g + x, 4 + shift);
            if (x < g - 1) add(y * g + x + 1, -1);
            if (y < g - 1) add((y + 1) * g + x, -1);
            a.rowPtr.push_back(int(a.cols.size()));
        }
    return a;
}

SolveResult solveOnHost(const CsrMatrix &a, const std::vector<double> &b, double tol, int maxIter) {
    const int n = a.rows;
    std::vector<double> x(n, 0), r = b, p = b, ap(n);
    auto dotp = [n](const std::vector<double> &u, const std::vector<double> &v) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += u[i] * v[i];
        return s;
    };
    const double bb = dotp(b, b), stop = tol * tol * bb;
    double rr = dotp(r, r);
    int it = 0;
    while (it < maxIter && rr > stop) {
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) s += a.vals[k] * p[a.cols[k]];
            ap[i] = s;
        }
        double alpha = rr / dotp(p, ap);
        for (int i = 0; i < n; ++i) x[i] += alpha * p[i], r[i] -= alpha * ap[i];
        double rrNew = dotp(r, r);
        for (int i = 0; i < n; ++i) p[i] = r[i] + rrNew / rr * p[i];
        rr = rrNew;
        ++it;
    }
    return {it, std::sqrt(rr / bb), x};
}

int main(int argc, char **argv) {
    const int g = argc > 1 ? atoi(argv[1]) : 384;
    const double tol = 1e-8;
    const int maxIter = 4000;
    CsrMatrix a = poisson2d(g, 0.5);
    std::vector<double> b(a.rows);
    for (int i = 0; i < a.rows; ++i) b[i] = 1.0 + 0.5 * std::sin(0.01 * i);
    SolveResult dev = solveOnDevice(a, b, tol, maxIter);
    SolveResult host = solveOnHost(a, b, tol, maxIter);
    // The true residual of the device's x, and its distance from the host's.
    double rr = 0, bb = 0, diff = 0, norm = 0;
    for (int i = 0; i < a.rows; ++i) {
        double s = 0;
        for (int k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) s += a.vals[k] * dev.x[a.cols[k]];
        rr += (b[i] - s) * (b[i] - s);
        bb += b[i] * b[i];
        diff += (dev.x[i] - host.x[i]) * (dev.x[i] - host.x[i]);
        norm += host.x[i] * host.x[i];
    }
    double trueRes = std::sqrt(rr / bb), relErr = std::sqrt(diff / norm);
    bool converged = dev.residual < tol && trueRes < 10 * tol;
    bool sameIterations = std::abs(dev.iterations - host.iterations) <= 2;
    bool close = relErr < 1e-6;
    printf("grid %dx%d, %d unknowns, %zu nonzeros, %d iterations on the host\n", g, g, a.rows,
           a.vals.size(), host.iterations);
    printf("converged below %.0e: %s; iterations within 2 of the host's: %s\n", tol,
           converged ? "yes" : "NO", sameIterations ? "yes" : "NO");
    printf("solution within 1e-6 of the host's: %s\n", close ? "yes" : "NO");
    bool ok = converged && sameIterations && close;
    printf("conjugate_gradient: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
