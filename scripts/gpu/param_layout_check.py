#!/usr/bin/env python3
"""Compares `chevron inspect --json` parameter layouts with the CUDA driver's.

Usage: param_layout_check.py CHEVRON_BINARY FILE...
Each file (PTX, cubin or fatbin) is loaded with cuModuleLoadDataEx; for every kernel chevron
lists, cuFuncGetParamInfo gives each parameter's offset and size, and the index after the last
parameter must be rejected. Relocatable (-rdc) objects and cubins for another GPU architecture
are skipped (the driver cannot load them alone). Exits non-zero on any mismatch.
"""

import ctypes
import json
import re
import subprocess
import sys


def main(chevron, files):
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(result, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else result}")

    check(cuda.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device), "compute capability major")
    check(cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device), "compute capability minor")
    sm = major.value * 10 + minor.value
    context = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    print(f"device sm_{sm}")

    kernels = mismatches = skipped = 0
    for path in files:
        if "rdc" in path:
            skipped += 1
            continue
        arch = re.search(r"\.sm_(\d+)\.cubin$", path)
        if arch and int(arch.group(1)) // 10 != sm // 10:
            skipped += 1
            continue
        table = json.loads(subprocess.run([chevron, "inspect", "--json", path], check=True,
                                          capture_output=True, text=True).stdout)
        data = open(path, "rb").read()
        if path.endswith(".ptx"):
            data += b"\0"
        module = ctypes.c_void_p()
        try:
            check(cuda.cuModuleLoadDataEx(ctypes.byref(module), data, 0, None, None), "load")
        except RuntimeError as e:
            print(f"{path}: SKIPPED, the driver does not load it ({e})")
            skipped += 1
            continue
        for symbol in table["symbols"]:
            if symbol["kind"] != "kernel" or not symbol["defined"]:
                continue
            kernels += 1
            function = ctypes.c_void_p()
            check(cuda.cuModuleGetFunction(ctypes.byref(function), module,
                                           symbol["name"].encode()), symbol["name"])
            ours = [(p["offset"], p["size"]) for p in symbol["params"]]
            theirs = []
            while True:
                offset, size = ctypes.c_size_t(), ctypes.c_size_t()
                if cuda.cuFuncGetParamInfo(function, ctypes.c_size_t(len(theirs)),
                                           ctypes.byref(offset), ctypes.byref(size)) != 0:
                    break
                theirs.append((offset.value, size.value))
            if ours != theirs:
                mismatches += 1
                print(f"{path}: {symbol['name']}: chevron {ours}, driver {theirs}")
        cuda.cuModuleUnload(module)
    print(f"{kernels} kernels checked, {mismatches} mismatches, {skipped} files skipped")
    return 1 if mismatches or kernels == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
