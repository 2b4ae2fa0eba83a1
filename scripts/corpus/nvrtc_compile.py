#!/usr/bin/env python3
"""Compile one CUDA C++ file to PTX (and optionally a cubin) with NVRTC through ctypes.

Usage:
  nvrtc_compile.py SRC --ptx OUT.ptx [--cubin OUT.cubin] [--name-expr EXPR ...]
                   [--names OUT.txt] [--nvrtc-dir DIR] -- NVRTC_OPTION ...

Everything after `--` is passed to nvrtcCompileProgram unchanged (for example
`--gpu-architecture=compute_80 -rdc=true --use_fast_math`). `--name-expr` registers a name
expression (nvrtcAddNameExpression) and `--names` writes `expression<TAB>lowered name` lines.
The NVRTC library is looked up in --nvrtc-dir, then $NVRTC_DIR, then the default loader path.
Exits non-zero with the compile log on stderr when compilation fails.
"""

import argparse
import ctypes
import os
import sys


def load_nvrtc(directory):
    """Loads libnvrtc.so.13, preloading libnvrtc-builtins from the same directory."""
    candidates = [directory, os.environ.get("NVRTC_DIR")]
    for d in candidates:
        if not d:
            continue
        builtins = os.path.join(d, "libnvrtc-builtins.so.13.0")
        if os.path.exists(builtins):
            ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
        lib = os.path.join(d, "libnvrtc.so.13")
        if os.path.exists(lib):
            return ctypes.CDLL(lib)
    return ctypes.CDLL("libnvrtc.so.13")


class Nvrtc:
    """A thin wrapper that checks every nvrtcResult."""

    def __init__(self, lib):
        self.lib = lib
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def check(self, result, what, prog=None):
        if result != 0:
            msg = self.lib.nvrtcGetErrorString(result).decode()
            log = self.log(prog) if prog is not None else ""
            raise RuntimeError(f"{what} failed: {msg}\n{log}")

    def version(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        return major.value, minor.value

    def log(self, prog):
        size = ctypes.c_size_t()
        if self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)) != 0:
            return ""
        buf = ctypes.create_string_buffer(size.value)
        self.lib.nvrtcGetProgramLog(prog, buf)
        return buf.value.decode(errors="replace")

    def blob(self, prog, size_fn, get_fn):
        size = ctypes.c_size_t()
        self.check(getattr(self.lib, size_fn)(prog, ctypes.byref(size)), size_fn)
        buf = ctypes.create_string_buffer(size.value)
        self.check(getattr(self.lib, get_fn)(prog, buf), get_fn)
        return buf.raw[: size.value]


def compile_file(nv, src_path, options, name_exprs):
    """Compiles src_path; returns (program handle, lowered names, log)."""
    with open(src_path, "rb") as f:
        source = f.read()
    prog = ctypes.c_void_p()
    name = os.path.basename(src_path).encode()
    nv.check(nv.lib.nvrtcCreateProgram(ctypes.byref(prog), source, name, 0, None, None),
             "nvrtcCreateProgram")
    for expr in name_exprs:
        nv.check(nv.lib.nvrtcAddNameExpression(prog, expr.encode()), "nvrtcAddNameExpression")
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    nv.check(nv.lib.nvrtcCompileProgram(prog, len(options), opts), "nvrtcCompileProgram", prog)
    lowered = []
    for expr in name_exprs:
        out = ctypes.c_char_p()
        nv.check(nv.lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)),
                 "nvrtcGetLoweredName")
        lowered.append((expr, out.value.decode()))
    return prog, lowered, nv.log(prog)


def absolute_include(option):
    """Makes the directory of an --include-path=DIR / -IDIR option absolute."""
    for prefix in ("--include-path=", "-I"):
        if option.startswith(prefix):
            return prefix + os.path.abspath(option[len(prefix):])
    return option


def main():
    argv = sys.argv[1:]
    nvrtc_opts = []
    if "--" in argv:
        i = argv.index("--")
        argv, nvrtc_opts = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", nargs="?")
    ap.add_argument("--ptx")
    ap.add_argument("--cubin")
    ap.add_argument("--name-expr", action="append", default=[])
    ap.add_argument("--names")
    ap.add_argument("--nvrtc-dir")
    ap.add_argument("--version", action="store_true", help="print the NVRTC version and exit")
    args = ap.parse_args(argv)

    nv = Nvrtc(load_nvrtc(args.nvrtc_dir and os.path.abspath(args.nvrtc_dir)))
    if args.version:
        print("%d.%d" % nv.version())
        return 0
    # NVRTC names the source in .file directives (-lineinfo, -G) as CWD/NAME: compile from /
    # so that no local directory ends up in the output.
    args.src = os.path.abspath(args.src)
    for attr in ("ptx", "cubin", "names"):
        if getattr(args, attr):
            setattr(args, attr, os.path.abspath(getattr(args, attr)))
    nvrtc_opts = [absolute_include(o) for o in nvrtc_opts]
    os.chdir("/")
    try:
        prog, lowered, log = compile_file(nv, args.src, nvrtc_opts, args.name_expr)
    except RuntimeError as e:
        print(f"{args.src}: {e}", file=sys.stderr)
        return 1
    if log.strip():
        print(f"{args.src}: {log.strip()}", file=sys.stderr)
    if args.ptx:
        ptx = nv.blob(prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\0")
        with open(args.ptx, "wb") as f:
            f.write(ptx)
    if args.cubin:
        with open(args.cubin, "wb") as f:
            f.write(nv.blob(prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN"))
    if args.names:
        with open(args.names, "w") as f:
            for expr, low in lowered:
                f.write(f"{expr}\t{low}\n")
    nv.lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return 0


if __name__ == "__main__":
    sys.exit(main())
