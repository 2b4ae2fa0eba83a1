"""Numba-CUDA kernels checked against NumPy; run under `chevron exec --device cpu python …`.

Elementwise, a shared-memory reduction with cuda.syncthreads, atomics, cuda.local.array,
device functions, cuda.shfl_* intrinsics, a 2D stencil, streams and events. Prints one line
per case and "numba: ok" at the end; any mismatch raises.
"""
import math

import numpy as np
from numba import cuda, float32, int32


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def block_sum(x, out):
    part = cuda.shared.array(256, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    part[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            part[t] += part[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = part[0]


@cuda.jit
def histogram(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)


@cuda.jit
def reverse_chunks(x, out):
    i = cuda.grid(1)
    if (i + 1) * 8 <= x.size:
        chunk = cuda.local.array(8, dtype=int32)
        for k in range(8):
            chunk[k] = x[i * 8 + k]
        for k in range(8):
            out[i * 8 + k] = chunk[7 - k]


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def smooth(v):
    return clamp(v * v - 1.0, -2.0, 2.0)


@cuda.jit
def apply_smooth(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = smooth(x[i])


@cuda.jit
def warp_ops(x, sums, downs, xors, ups):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    total = v
    offset = 16
    while offset > 0:
        total += cuda.shfl_down_sync(0xFFFFFFFF, total, offset)
        offset //= 2
    sums[i] = cuda.shfl_sync(0xFFFFFFFF, total, 0)
    downs[i] = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    xors[i] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)
    ups[i] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1) if lane > 0 else v


@cuda.jit
def stencil(grid, out):
    r, c = cuda.grid(2)
    rows, cols = grid.shape
    if 0 < r < rows - 1 and 0 < c < cols - 1:
        out[r, c] = 0.2 * (
            grid[r, c] + grid[r - 1, c] + grid[r + 1, c] + grid[r, c - 1] + grid[r, c + 1]
        )


def check(name, got, expected, **tolerance):
    np.testing.assert_allclose(got, expected, **tolerance)
    print(f"{name}: ok")


def main():
    rng = np.random.default_rng(7)

    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    out = np.zeros_like(x)
    saxpy[(x.size + 255) // 256, 256](np.float32(2.5), x, y, out)
    check("elementwise", out, 2.5 * x + y, rtol=1e-5, atol=1e-6)  # fused multiply-add

    dx = cuda.to_device(x)
    partial = cuda.device_array((x.size + 255) // 256, dtype=np.float32)
    block_sum[partial.size, 256](dx, partial)
    check("reduction", partial.copy_to_host().sum(), x.sum(), rtol=1e-4)

    values = rng.integers(0, 1000, 20000).astype(np.int32)
    bins = cuda.to_device(np.zeros(16, dtype=np.int32))
    histogram[(values.size + 127) // 128, 128](cuda.to_device(values), bins)
    check("atomics", bins.copy_to_host(), np.bincount(values % 16, minlength=16))

    ints = np.arange(1024, dtype=np.int32)
    reversed_ = np.zeros_like(ints)
    reverse_chunks[1, 128](ints, reversed_)
    check("local array", reversed_, ints.reshape(-1, 8)[:, ::-1].ravel())

    smoothed = np.zeros_like(x)
    apply_smooth[(x.size + 255) // 256, 256](x, smoothed)
    check("device functions", smoothed, np.clip(x * x - 1.0, -2.0, 2.0), rtol=1e-5, atol=1e-6)

    w = np.arange(128, dtype=np.int32)
    sums, downs, xors, ups = (np.zeros_like(w) for _ in range(4))
    warp_ops[2, 64](w, sums, downs, xors, ups)
    warps = w.reshape(-1, 32)
    check("shfl sum", sums, np.repeat(warps.sum(axis=1), 32))
    expected_down = np.concatenate([np.append(r[1:], r[-1]) for r in warps])
    check("shfl down", downs, expected_down)
    check("shfl xor", xors, w ^ 1)
    # Lane 0 takes the other branch, so lane 1's source never executes the shuffle: an H200
    # (driver 580) gives 0 there, and so does the CPU device (scripts/gpu/probes).
    expected_up = np.concatenate([np.concatenate(([r[0], 0], r[1:-1])) for r in warps])
    check("shfl up", ups, expected_up)

    g = rng.standard_normal((64, 48)).astype(np.float32)
    s = np.zeros_like(g)
    stencil[(4, 3), (16, 16)](g, s)
    e = np.zeros_like(g)
    e[1:-1, 1:-1] = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
    check("2D stencil", s, e, rtol=1e-5, atol=1e-6)

    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(stream)
    d_in = cuda.to_device(x, stream=stream)
    d_out = cuda.device_array_like(x, stream=stream)
    saxpy[(x.size + 255) // 256, 256, stream](np.float32(-1.0), d_in, d_in, d_out)
    end.record(stream)
    result = d_out.copy_to_host(stream=stream)
    stream.synchronize()
    elapsed = cuda.event_elapsed_time(start, end)
    assert elapsed >= 0.0 and not math.isnan(elapsed)
    check("streams and events", result, np.zeros_like(x))
    print("numba: ok")


if __name__ == "__main__":
    main()
