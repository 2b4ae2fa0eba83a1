"""A Numba-CUDA kernel for the install and wheel checks, the Python twin of square.cu: squares
0..999 on the device through the driver library (`libcuda.so.1`, chevron's under `chevron
exec`), compares with NumPy and prints the device and the sum (332833500)."""
import numpy as np
from numba import cuda


@cuda.jit
def square(v):
    i = cuda.grid(1)
    if i < v.size:
        v[i] *= v[i]


host = np.arange(1000, dtype=np.int64)
dev = cuda.to_device(host)
square[(host.size + 127) // 128, 128](dev)
result = dev.copy_to_host()
if not np.array_equal(result, host * host):
    raise SystemExit("numba: wrong squares: %s" % result[:8])
name = cuda.get_current_device().name
name = name.decode() if isinstance(name, bytes) else name
print("numba on %s: sum of squares %d" % (name, result.sum()))
