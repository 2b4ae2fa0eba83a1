"""CuPy kernels checked against NumPy: RawKernel, RawModule, ElementwiseKernel and
ReductionKernel, compiled to PTX (run with CUPY_COMPILE_WITH_PTX=1 under `chevron exec`).
Prints one line per case and "cupy: ok" at the end; any mismatch raises.
"""
import cupy as cp
import numpy as np

SOURCE = r"""
extern "C" __global__ void twice(const float* x, float* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" __global__ void offset(int* x, int by, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) x[i] += by;
}
"""


def main():
    x = cp.arange(1000, dtype=cp.float32)
    y = cp.empty_like(x)
    cp.RawKernel(SOURCE, "twice")((4,), (256,), (x, y, np.int32(x.size)))
    np.testing.assert_allclose(cp.asnumpy(y), 2 * np.arange(1000, dtype=np.float32))
    print("RawKernel: ok")

    module = cp.RawModule(code=SOURCE)
    ints = cp.arange(500, dtype=cp.int32)
    module.get_function("offset")((2,), (256,), (ints, np.int32(7), np.int32(ints.size)))
    np.testing.assert_array_equal(cp.asnumpy(ints), np.arange(500) + 7)
    print("RawModule: ok")

    axpy = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "axpy")
    z = axpy(np.float32(3), x, x)
    np.testing.assert_allclose(cp.asnumpy(z), 4 * np.arange(1000, dtype=np.float32), rtol=1e-6)
    print("ElementwiseKernel: ok")

    sum_of_squares = cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "ssq")
    got = float(sum_of_squares(x))
    expected = float((np.arange(1000, dtype=np.float64) ** 2).sum())
    assert abs(got - expected) <= 1e-5 * expected, (got, expected)
    print("ReductionKernel: ok")
    print("cupy: ok")


if __name__ == "__main__":
    main()
