// Templates across translation units: three instantiations of one kernel template.
#include <vector>
#include "check.h"
#include "templates.h"
template <typename T, int Factor>
bool run(const char* name) {
    const int n = 1000;
    std::vector<T> x(n), y(n);
    for (int i = 0; i < n; ++i) { x[i] = T(i % 17); y[i] = T(i % 5); }
    T *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(T)));
    CHECK(cudaMalloc(&dy, n * sizeof(T)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    launch_axpy<T, Factor>(dy, dx, T(2), n);
    CHECK(cudaGetLastError());
    std::vector<T> out(n);
    CHECK(cudaMemcpy(out.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
    int wrong = 0;
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        wrong += out[i] != T(2) * x[i] * T(Factor) + y[i];
        sum += double(out[i]);
    }
    std::printf("%s: sum %.1f, wrong %d\n", name, sum, wrong);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    return wrong == 0;
}
int main() {
    bool ok = run<float, 1>("float") & run<double, 3>("double") & run<int, 2>("int");
    std::printf("templates: %s\n", ok ? "ok" : "FAILED");
    return !ok;
}
