#!/usr/bin/env python3
"""Loads linked rdc_caller + rdc_callee PTX with the CUDA driver (ctypes) and checks that it runs.

Usage: run_linked_rdc.py LINKED.ptx
rdc_apply(x, y, clamped, n, s) computes y = fma(x, s, 1) through rdc_scale, clamped =
rdc_clamp((int)x, -10, 10), and bumps the global rdc_counter once per element (defined in the
callee, used by the caller); rdc_reset and rdc_read_counter set and read it.
"""

import ctypes
import sys

N = 1000
SCALE = 2.0


def main(path):
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(result, ctypes.byref(name))
            raise SystemExit(f"{path}: {what} failed: {name.value.decode() if name.value else result}")

    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")

    ptx = open(path, "rb").read() + b"\0"
    log = ctypes.create_string_buffer(8192)
    options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
    values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log)))
    module = ctypes.c_void_p()
    result = cuda.cuModuleLoadDataEx(ctypes.byref(module), ptx, 2, options, values)
    if result != 0:
        print(log.value.decode(errors="replace"), file=sys.stderr)
    check(result, "cuModuleLoadDataEx")

    def function(name):
        f = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), f"get {name}")
        return f

    def alloc(size):
        ptr = ctypes.c_uint64()
        check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(size)), "cuMemAlloc")
        return ptr

    def launch(f, grid, block, *args):
        params = (ctypes.c_void_p * len(args))(
            *[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
        check(cuda.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, None, params, None), "launch")

    x_host = (ctypes.c_float * N)(*[(i - N // 2) * 0.05 for i in range(N)])
    x, y, clamped, counter = alloc(4 * N), alloc(4 * N), alloc(4 * N), alloc(4)
    check(cuda.cuMemcpyHtoD_v2(x, x_host, ctypes.c_size_t(4 * N)), "copy x")
    launch(function("rdc_reset"), 1, 1, ctypes.c_uint32(0))
    launch(function("rdc_apply"), (N + 127) // 128, 128, x, y, clamped,
           ctypes.c_int32(N), ctypes.c_float(SCALE))
    launch(function("rdc_read_counter"), 1, 1, counter)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")

    y_host = (ctypes.c_float * N)()
    clamped_host = (ctypes.c_int32 * N)()
    counter_host = ctypes.c_int32()
    check(cuda.cuMemcpyDtoH_v2(y_host, y, ctypes.c_size_t(4 * N)), "copy y")
    check(cuda.cuMemcpyDtoH_v2(clamped_host, clamped, ctypes.c_size_t(4 * N)), "copy clamped")
    check(cuda.cuMemcpyDtoH_v2(ctypes.byref(counter_host), counter, ctypes.c_size_t(4)), "copy counter")

    errors = []
    for i in range(N):
        want_y = x_host[i] * SCALE + 1.0
        if abs(y_host[i] - want_y) > 1e-5 * max(1.0, abs(want_y)):
            errors.append(f"y[{i}] = {y_host[i]}, want {want_y}")
        want_c = max(-10, min(int(x_host[i]), 10))
        if clamped_host[i] != want_c:
            errors.append(f"clamped[{i}] = {clamped_host[i]}, want {want_c}")
    if counter_host.value != N:
        errors.append(f"rdc_counter = {counter_host.value}, want {N}")
    if errors:
        raise SystemExit(f"{path}: FAILED: " + "; ".join(errors[:5]))
    print(f"{path}: OK ({N} elements, counter {counter_host.value})")


if __name__ == "__main__":
    main(sys.argv[1])
