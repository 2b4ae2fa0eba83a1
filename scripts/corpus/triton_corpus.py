#!/usr/bin/env python3
"""Compile a few Triton kernels ahead of time for given CUDA targets and write their PTX.

Usage: triton_corpus.py OUT_DIR [--arch 80 --arch 90] [--cubin] [--ptx-version 90 --suffix ptx90]

Kernels: element-wise add, row softmax, layer norm (forward), and a small matmul using tl.dot.
Each is compiled with triton.compile(ASTSource(...), target=GPUTarget("cuda", ARCH, 32)), which
needs no GPU (only Triton's bundled ptxas for the cubin stage). Writes
OUT_DIR/NAME.sm_ARCH[.SUFFIX].ptx (and .cubin with --cubin) and OUT_DIR/VERSIONS.txt.
--ptx-version sets Triton's ptx_version option (e.g. 90 for PTX ISA 9.0, the newest that
driver 580 JIT-compiles; by default Triton writes the ISA of the ptxas it bundles). Written to cope
with the ASTSource signatures of Triton 3.0 to 3.9; when ahead-of-time compilation fails
entirely it falls back, on a machine with a GPU, to launching each kernel once and reading
kernel.asm["ptx"] for the current device.
"""

import argparse
import inspect
import os
import sys
import traceback

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                      BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# name -> (kernel, {arg: type or "constexpr"}, {constexpr arg: value}, num_warps)
KERNELS = {
    "add": (add_kernel,
            {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32",
             "BLOCK_SIZE": "constexpr"},
            {"BLOCK_SIZE": 1024}, 4),
    "softmax": (softmax_kernel,
                {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
                 "out_row_stride": "i32", "n_cols": "i32", "BLOCK_SIZE": "constexpr"},
                {"BLOCK_SIZE": 1024}, 4),
    "layer_norm": (layer_norm_kernel,
                   {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                    "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "stride": "i32", "n_cols": "i32",
                    "eps": "fp32", "BLOCK_SIZE": "constexpr"},
                   {"BLOCK_SIZE": 512}, 4),
    "matmul": (matmul_kernel,
               {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
                "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32",
                "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"},
               {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, 4),
}


def gpu_target(arch):
    try:
        from triton.backends.compiler import GPUTarget
    except ImportError:  # very early 3.0 builds
        from triton.compiler.compiler import GPUTarget
    return GPUTarget("cuda", arch, 32)


def make_sources(fn, signature, constexprs):
    """Yields (description, ASTSource) for each known ASTSource convention, newest first."""
    from triton.compiler import ASTSource
    params = inspect.signature(ASTSource.__init__).parameters
    names = list(signature)
    by_index_sig = {i: t for i, t in enumerate(signature.values()) if t != "constexpr"}
    by_index_const = {names.index(k): v for k, v in constexprs.items()}
    if "constexprs" in params:  # 3.3+: names, "constexpr" in the signature
        yield "constexprs by name", lambda: ASTSource(fn, signature=signature, constexprs=constexprs)
    if "constants" in params:
        # 3.2: names with "constexpr" entries; 3.0/3.1: indices without them.
        yield "constants by name", lambda: ASTSource(fn, signature=signature, constants=constexprs)
        yield "constants by index", lambda: ASTSource(fn, signature=by_index_sig,
                                                      constants=by_index_const)


def compile_one(name, arch, want_cubin, out_dir, ptx_version=None, suffix=""):
    fn, signature, constexprs, num_warps = KERNELS[name]
    options = {"num_warps": num_warps}
    if ptx_version:
        options["ptx_version"] = ptx_version
    errors = []
    for how, make in make_sources(fn, signature, constexprs):
        try:
            compiled = triton.compile(make(), target=gpu_target(arch), options=options)
        except Exception as e:  # try the next convention
            errors.append(f"{how}: {type(e).__name__}: {e}")
            continue
        write(out_dir, f"{name}.sm_{arch}{'.' + suffix if suffix else ''}", compiled.asm, want_cubin)
        return True
    print(f"triton_corpus: {name} sm_{arch}: ahead-of-time compile failed:\n  " + "\n  ".join(errors),
          file=sys.stderr)
    return False


def write(out_dir, stem, asm, want_cubin):
    ptx = asm["ptx"]
    with open(os.path.join(out_dir, f"{stem}.ptx"), "w") as f:
        f.write(ptx if isinstance(ptx, str) else ptx.decode())
    if want_cubin and "cubin" in asm:
        with open(os.path.join(out_dir, f"{stem}.cubin"), "wb") as f:
            f.write(asm["cubin"])
    print(f"triton_corpus: wrote {stem}", file=sys.stderr)


def run_once_fallback(out_dir, want_cubin):
    """Launches each kernel once on the current GPU (needs torch) and saves its PTX."""
    import torch
    dev = "cuda"
    cap = torch.cuda.get_device_capability()
    arch = cap[0] * 10 + cap[1]
    n = 4096
    x = torch.rand(n, device=dev)
    y = torch.rand(n, device=dev)
    out = torch.empty_like(x)
    k = add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    write(out_dir, f"add.sm_{arch}.run", k.asm, want_cubin)
    rows, cols = 8, 1000
    a = torch.rand(rows, cols, device=dev)
    o = torch.empty_like(a)
    k = softmax_kernel[(rows,)](o, a, a.stride(0), o.stride(0), cols, BLOCK_SIZE=1024)
    write(out_dir, f"softmax.sm_{arch}.run", k.asm, want_cubin)
    w = torch.rand(cols, device=dev)
    b = torch.rand(cols, device=dev)
    mean = torch.empty(rows, device=dev)
    rstd = torch.empty(rows, device=dev)
    k = layer_norm_kernel[(rows,)](a, o, w, b, mean, rstd, a.stride(0), cols, 1e-5, BLOCK_SIZE=1024)
    write(out_dir, f"layer_norm.sm_{arch}.run", k.asm, want_cubin)
    m = 128
    ma = torch.rand(m, m, device=dev, dtype=torch.float16)
    mb = torch.rand(m, m, device=dev, dtype=torch.float16)
    mc = torch.empty(m, m, device=dev, dtype=torch.float16)
    k = matmul_kernel[(m // 64, m // 64)](ma, mb, mc, m, m, m, ma.stride(0), ma.stride(1),
                                          mb.stride(0), mb.stride(1), mc.stride(0), mc.stride(1),
                                          BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    write(out_dir, f"matmul.sm_{arch}.run", k.asm, want_cubin)
    torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--arch", type=int, action="append", help="compute capability, e.g. 80")
    ap.add_argument("--cubin", action="store_true", help="also write cubins")
    ap.add_argument("--no-fallback", action="store_true", help="never launch kernels")
    ap.add_argument("--ptx-version", type=int, help="Triton's ptx_version option, e.g. 90")
    ap.add_argument("--suffix", default="", help="added to the file names, e.g. ptx90")
    args = ap.parse_args()
    archs = args.arch or [80, 90]
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "VERSIONS.txt"), "a") as f:
        f.write(f"triton {triton.__version__}\npython {sys.version.split()[0]}\n")
    ok = 0
    total = 0
    for name in KERNELS:
        for arch in archs:
            total += 1
            try:
                ok += compile_one(name, arch, args.cubin, args.out_dir, args.ptx_version,
                                  args.suffix)
            except Exception:
                traceback.print_exc()
    print(f"triton_corpus: {ok}/{total} compiled ahead of time", file=sys.stderr)
    if ok == 0 and not args.no_fallback:
        try:
            run_once_fallback(args.out_dir, args.cubin)
            return 0
        except Exception:
            traceback.print_exc()
            return 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
