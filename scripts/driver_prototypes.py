#!/usr/bin/env python3
"""Writes the table tests/driver/hostile_driver.c calls every driver function through.

Usage: driver_prototypes.py TOOLKIT_INCLUDE OUTPUT.c [--runtime]

With --runtime, the same for the runtime's `cuda*` functions of cuda_runtime_api.h (handles
of the runtime's types; an `int` parameter named as a device is a device).

Reads the toolkit's cuda.h (and cudaProfiler.h's two functions) as the C preprocessor sees them in three modes
(the current ABI, per-thread default stream `_ptsz`/`_ptds`, and `__CUDA_API_VERSION_INTERNAL`,
which declares the older versions a library still exports), and writes for every `cu*`
function one row: its exported name, one letter per parameter saying what kind of value it
takes (the kinds below), and a caller that passes each parameter from a slot of bytes with the
parameter's exact C type. A test can then call any exported function with any mix of NULL,
forged, destroyed, huge and out-of-range arguments, through its real signature.

Kinds: o pointer written through (not const), i pointer read (const), f function pointer,
z size_t, n other scalar (int, flags, enums), s struct passed by value, d CUdevice,
D CUdeviceptr; handles: S stream, E event, M module, F function, C context, G graph,
X graph exec, N graph node, A array, T texture/surface object, P memory pool, L link state,
Y library, K kernel, U user object, h any other handle (forged only).
"""
import re
import subprocess
import sys

HANDLES = {
    "CUstream": "S", "CUevent": "E", "CUmodule": "M", "CUfunction": "F", "CUcontext": "C",
    "CUgraph": "G", "CUgraphExec": "X", "CUgraphNode": "N", "CUarray": "A",
    "CUtexObject": "T", "CUsurfObject": "T", "CUmemoryPool": "P", "CUlinkState": "L",
    "CUlibrary": "Y", "CUkernel": "K", "CUuserObject": "U", "CUdevice": "d",
    "CUdeviceptr": "D",
}
# cudaProfiler.h's two functions (the toolkit's wheel ships without that header).
PROFILER = "CUresult cuProfilerStart(void);\nCUresult cuProfilerStop(void);\n"
RUNTIME_HANDLES = {
    "cudaStream_t": "S", "cudaEvent_t": "E", "cudaGraph_t": "G", "cudaGraphExec_t": "X",
    "cudaGraphNode_t": "N", "cudaArray_t": "A", "cudaArray_const_t": "A",
    "cudaTextureObject_t": "T", "cudaSurfaceObject_t": "T", "cudaMemPool_t": "P",
    "cudaUserObject_t": "U", "cudaKernel_t": "K", "cudaLibrary_t": "Y",
}
DEVICE_NAMES = {"device", "dev", "srcDevice", "dstDevice", "peerDevice"}
MODES = ["", "-D__CUDA_API_PER_THREAD_DEFAULT_STREAM", "-D__CUDA_API_VERSION_INTERNAL"]


def preprocess(include, mode, runtime):
    source = "#include <cuda_runtime_api.h>\n" if runtime else "#include <cuda.h>\n" + PROFILER
    command = ["cc", "-x", "c", "-E", "-P", "-I", include] + ([mode] if mode else []) + ["-"]
    return subprocess.run(command, input=source, capture_output=True, text=True,
                          check=True).stdout


def split_params(text):
    """The parameter declarations of a prototype, split at top-level commas."""
    params, depth, current = [], 0, ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            params.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip() and current.strip() != "void":
        params.append(current.strip())
    return params


def kind(declaration, name, handles, callbacks, structs, table=None):
    """The letter of one parameter (see the module's doc)."""
    table = table or HANDLES
    base = declaration[: declaration.rfind(name)].strip() if name else declaration
    base = re.sub(r"\s+", " ", base)
    if "(" in declaration or base in callbacks:
        return "f"
    if base.endswith("*") or declaration.rstrip().endswith("]"):
        return "i" if base.startswith("const") else "o"
    base = base.replace("const ", "")
    if base in table:
        return table[base]
    if table is RUNTIME_HANDLES and base == "int" and name in DEVICE_NAMES:
        return "d"
    if base in handles:
        return "h"
    if base == "size_t":
        return "z"
    if base in structs:
        return "s"
    return "n"


def main():
    include, output = sys.argv[1], sys.argv[2]
    runtime = "--runtime" in sys.argv[3:]
    returns = "cudaError_t" if runtime else "CUresult"
    prefix = "cuda" if runtime else "cu"
    table = RUNTIME_HANDLES if runtime else HANDLES
    prototypes = {}
    handles, callbacks, structs = set(), set(), set()
    for mode in MODES:
        text = preprocess(include, mode, runtime)
        handles |= set(re.findall(r"typedef struct \w+ \*(\w+);", text))
        callbacks |= set(re.findall(r"typedef [\w\s\*]+\(\s*\*\s*(\w+)\s*\)", text))
        structs |= set(re.findall(r"typedef (?:struct|union) \w*\s*\{[^}]*(?:\{[^}]*\}[^}]*)*\}"
                                  r"\s*(\w+)\s*;", text, re.S))
        structs |= set(re.findall(r"typedef struct \w+ (\w+);", text))
        pattern = rf"\b{returns}\s+({prefix}[A-Z]\w*)\s*\(([^;{{]*?)\)\s*;"
        for match in re.finditer(pattern, text):
            prototypes.setdefault(match.group(1), split_params(match.group(2)))
    rows, callers = [], []
    for index, (function, params) in enumerate(sorted(prototypes.items())):
        kinds, types, args, aliases = "", [], [], []
        for position, declaration in enumerate(params):
            names = re.findall(r"[A-Za-z_]\w*", re.sub(r"\[.*?\]", "", declaration))
            name = names[-1] if len(names) > 1 else None
            kinds += kind(declaration, name, handles, callbacks, structs, table)
            alias = f"hostile_t{index}_{position}"
            if name is None:
                typedef = f"{declaration} {alias}"
            elif "(" in declaration:
                typedef = declaration.replace(f"*{name})", f"*{alias})", 1)
            else:
                typedef = declaration[: declaration.rfind(name)] + alias + \
                    declaration[declaration.rfind(name) + len(name):]
            types.append(f"typedef {typedef};")
            aliases.append(alias)
            args.append(f"*({alias} *)slots[{position}].bytes")
        callers.append("\n".join(types) + "\n" +
                       f"static CUresult hostile_call{index}(void *f, hostile_slot *slots) {{\n"
                       f"    (void)slots;\n"
                       f"    return ((CUresult(*)({', '.join(aliases) or 'void'}))f)"
                       f"({', '.join(args)});\n}}\n")
        rows.append(f'    {{"{function}", "{kinds}", hostile_call{index}}},')
    with open(output, "w") as out:
        out.write("// Generated by scripts/driver_prototypes.py from the toolkit's cuda.h: every\n"
                  "// driver function, the kinds of its parameters and a caller with its exact\n"
                  "// signature (tests/driver/hostile_driver.h). Do not edit.\n")
        out.write("#define __CUDA_API_VERSION_INTERNAL\n#include \"hostile_driver.h\"\n"
                  + ("#include <cuda_runtime_api.h>\n" if runtime else PROFILER) + "\n")
        out.write("\n".join(callers))
        array = "hostile_runtime_functions" if runtime else "hostile_functions"
        out.write(f"\nconst struct hostile_function {array}[] = {{\n")
        out.write("\n".join(rows) + "\n};\n")
        out.write(f"const unsigned {array[:-1]}_count = sizeof {array} / sizeof {array}[0];\n")


if __name__ == "__main__":
    main()
