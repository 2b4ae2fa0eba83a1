// One kernel template, instantiated for every function of functions.h through a functor, and
// the switch the host calls by index.
#include "functions.h"
#include "../common/helpers.h"

template <typename T, typename F>
__global__ void apply(const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ out, int n, F f) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = f(x[i], y[i]);
}

template <typename T, typename F>
static void launch(const T *x, const T *y, T *out, int n, F f) {
    apply<<<(n + 255) / 256 > 1024 ? 1024 : (n + 255) / 256, 256>>>(x, y, out, n, f);
    checkCudaErrors(cudaGetLastError());
}

#define UNARY_FUNCTOR(fn, ...) \
    struct Op_##fn { template <typename T> __device__ T operator()(T a, T) const { return fn(a); } };
#define BINARY_FUNCTOR(fn, ...) \
    struct Op_##fn { template <typename T> __device__ T operator()(T a, T b) const { return fn(a, b); } };
FLOAT_UNARY(UNARY_FUNCTOR)
FLOAT_BINARY(BINARY_FUNCTOR)
DOUBLE_UNARY(UNARY_FUNCTOR)
DOUBLE_BINARY(BINARY_FUNCTOR)

#define CASE(fn, ...) \
    case __COUNTER__ - base - 1: launch(x, y, out, n, Op_##fn()); return;

void run_float(int id, const float *x, const float *y, float *out, int n) {
    enum { base = __COUNTER__ };
    switch (id) {
        FLOAT_UNARY(CASE)
        FLOAT_BINARY(CASE)
    }
}

void run_double(int id, const double *x, const double *y, double *out, int n) {
    enum { base = __COUNTER__ };
    switch (id) {
        DOUBLE_UNARY(CASE)
        DOUBLE_BINARY(CASE)
    }
}
