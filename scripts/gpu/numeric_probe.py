#!/usr/bin/env python3
"""Runs single PTX instructions on the GPU over edge-case and random operands, and records every
result, so that chevron's CPU semantics (crates/chevron-ptx/src/interp/numeric) can be checked
against the hardware bit for bit.

Run on the GPU machine (needs only the CUDA driver, libcuda.so.1, and Python 3):
    python3 scripts/gpu/numeric_probe.py OUT.txt
then, anywhere:
    cargo run -p chevron-ptx --example numeric_check -- OUT.txt
and, to refresh the CI fixture crates/chevron-ptx/tests/data/numeric_probe_h200.txt, reduce it
with scripts/gpu/numeric_fixture.py.

Each instruction gets its own tiny PTX module (so one the driver rejects does not stop the
others) with one kernel: thread i loads operands a[i], b[i], c[i] (64-bit patterns), runs the
instruction, and stores the destination register zero-extended to 64 bits. Output lines are
`name<TAB>class<TAB>a<TAB>b<TAB>c<TAB>d` in hex; rejected instructions are listed as `# skipped`.
"""
import ctypes
import random
import struct
import sys

# ---- operands -------------------------------------------------------------------------------
F32_SPECIAL = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000,
               0x80800000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x7f7fffff, 0xff7fffff,
               0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x40490fdb,
               0x33800000, 0x4b800000, 0x3f800001, 0x3f7fffff, 0x00000100, 0x4effffff,
               0xcf000000, 0x5f800000, 0x3f000000, 0xbf000000, 0x40200000, 0xc0200000,
               0x7fffffff, 0xffbfe001, 0x00ffffff]
F64_SPECIAL = [0x0, 0x8000000000000000, 0x1, 0x8000000000000001, 0x000fffffffffffff,
               0x0010000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x3ff8000000000000,
               0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000,
               0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001, 0x400921fb54442d18,
               0x3ff0000000000001, 0x3fefffffffffffff, 0x43e0000000000000, 0xc3e0000000000000,
               0x3fe0000000000000, 0x4004000000000000, 0x7ff4000000000000,
               0xfffc000012345678]
H16_SPECIAL = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3e00, 0x7bff,
               0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x3c01, 0x3bff, 0x4000, 0x3800]
BF16_SPECIAL = [0x0000, 0x8000, 0x0001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x3fc0, 0x7f7f, 0xff7f,
                0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x3f81, 0x4000, 0x3f00]
I32_SPECIAL = [0, 1, 2, 3, 7, 8, 15, 16, 24, 31, 32, 33, 63, 64, 65, 255, 256, 0x7fffffff,
               0x80000000, 0xffffffff, 0xfffffffe, 0x80000001, 0x00ffffff, 0x00800000,
               0x12345678, 0xdeadbeef, 0x0000ff00, 0x8000, 0xffff]
I64_SPECIAL = I32_SPECIAL + [0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff,
                             0x100000000, 0xffffffff00000000, 0x123456789abcdef0]

rng = random.Random(20240611)


def rand_f32():
    k = rng.randrange(5)
    sign = rng.getrandbits(1) << 31
    if k == 0:
        return rng.getrandbits(32)
    if k == 1:  # near 1
        return sign | (rng.randrange(110, 145) << 23) | rng.getrandbits(23)
    if k == 2:  # short significands: sums and products land on ties
        return sign | (rng.randrange(100, 155) << 23) | (rng.getrandbits(6) << 17)
    if k == 3:  # subnormal and tiny
        return sign | (rng.randrange(0, 4) << 23) | rng.getrandbits(23)
    return sign | (rng.randrange(230, 255) << 23) | rng.getrandbits(23)  # huge


def rand_f64():
    k = rng.randrange(5)
    sign = rng.getrandbits(1) << 63
    if k == 0:
        return rng.getrandbits(64)
    if k == 1:
        return sign | (rng.randrange(1000, 1050) << 52) | rng.getrandbits(52)
    if k == 2:
        return sign | (rng.randrange(990, 1060) << 52) | (rng.getrandbits(8) << 44)
    if k == 3:
        return sign | (rng.randrange(0, 3) << 52) | rng.getrandbits(52)
    return sign | (rng.randrange(2000, 2047) << 52) | rng.getrandbits(52)


def rand_int(bits):
    k = rng.randrange(4)
    if k == 0:
        return rng.getrandbits(bits)
    if k == 1:
        return rng.randrange(0, 80)
    if k == 2:
        return (1 << bits) - rng.randrange(1, 80)
    return rng.getrandbits(rng.randrange(1, bits + 1))


def operands(kind, arity, n=1200):
    """Specials crossed (up to arity 2) plus random tuples, as (a, b, c) lists."""
    special, rand = {
        "f32": (F32_SPECIAL, rand_f32), "f64": (F64_SPECIAL, rand_f64),
        "f16": (H16_SPECIAL, lambda: rng.getrandbits(16)),
        "bf16": (BF16_SPECIAL, lambda: rng.getrandbits(16)),
        "f16x2": (H16_SPECIAL, lambda: rng.getrandbits(32)),
        "bf16x2": (BF16_SPECIAL, lambda: rng.getrandbits(32)),
        "i32": (I32_SPECIAL, lambda: rand_int(32)), "i64": (I64_SPECIAL, lambda: rand_int(64)),
        "i16": ([x & 0xffff for x in I32_SPECIAL], lambda: rand_int(16)),
        "u8x2": ([0, 0x7f, 0x80, 0xff, 0x3c, 0x40, 0x7e, 0xfe], lambda: rng.getrandbits(16)),
    }[kind]
    if kind in ("f16x2", "bf16x2"):
        special = [(x << 16) | y for x in special[:8] for y in special[:8]]
    rows = []
    if arity == 1:
        rows = [(x, 0, 0) for x in special]
    elif arity >= 2:
        rows = [(x, y, rand() if arity == 3 else 0) for x in special for y in special]
    while len(rows) < n + len(special) ** min(arity, 2):
        a, b, c = rand(), rand(), rand()
        if kind == "f32" and rng.random() < 0.2:  # cancellation
            b = a ^ 0x80000000 ^ rng.getrandbits(3)
        if kind == "f64" and rng.random() < 0.2:
            b = a ^ 0x8000000000000000 ^ rng.getrandbits(3)
        rows.append((a, b if arity > 1 else 0, c if arity > 2 else 0))
    return rows


# ---- instructions ---------------------------------------------------------------------------
# (name, class, operand kind, arity). The class says how operands reach registers (see BODY).
OPS = []
for rnd in ("rn", "rz", "rm", "rp"):
    for op in ("add", "sub", "mul", "div"):
        OPS.append((f"{op}.{rnd}.f32", "f32_2", "f32", 2))
        OPS.append((f"{op}.{rnd}.f64", "f64_2", "f64", 2))
    OPS += [(f"fma.{rnd}.f32", "f32_3", "f32", 3), (f"fma.{rnd}.f64", "f64_3", "f64", 3),
            (f"sqrt.{rnd}.f32", "f32_1", "f32", 1), (f"sqrt.{rnd}.f64", "f64_1", "f64", 1),
            (f"rcp.{rnd}.f32", "f32_1", "f32", 1), (f"rcp.{rnd}.f64", "f64_1", "f64", 1)]
OPS += [("mul.rn.ftz.f32", "f32_2", "f32", 2), ("mul.rz.ftz.f32", "f32_2", "f32", 2),
        ("bfe.u64", "bfe64", "i64", 3)]
OPS += [("add.rn.ftz.f32", "f32_2", "f32", 2), ("add.rn.sat.f32", "f32_2", "f32", 2),
        ("mul.rn.ftz.sat.f32", "f32_2", "f32", 2), ("fma.rn.ftz.f32", "f32_3", "f32", 3),
        ("min.f32", "f32_2", "f32", 2), ("max.f32", "f32_2", "f32", 2),
        ("min.NaN.f32", "f32_2", "f32", 2), ("max.NaN.f32", "f32_2", "f32", 2),
        ("min.f64", "f64_2", "f64", 2), ("max.f64", "f64_2", "f64", 2),
        ("max.xorsign.abs.f32", "f32_2", "f32", 2), ("copysign.f32", "f32_2", "f32", 2),
        ("neg.f32", "f32_1", "f32", 1), ("abs.f32", "f32_1", "f32", 1),
        ("div.approx.f32", "f32_2", "f32", 2), ("div.full.f32", "f32_2", "f32", 2),
        ("ex2.approx.f32", "f32_1", "f32", 1), ("lg2.approx.f32", "f32_1", "f32", 1),
        ("sin.approx.f32", "f32_1", "f32", 1), ("cos.approx.f32", "f32_1", "f32", 1),
        ("rsqrt.approx.f32", "f32_1", "f32", 1), ("rcp.approx.f32", "f32_1", "f32", 1),
        ("sqrt.approx.f32", "f32_1", "f32", 1), ("tanh.approx.f32", "f32_1", "f32", 1),
        ("ex2.approx.ftz.f32", "f32_1", "f32", 1), ("rcp.approx.ftz.f64", "f64_1", "f64", 1),
        ("rsqrt.approx.f64", "f64_1", "f64", 1), ("rsqrt.approx.ftz.f64", "f64_1", "f64", 1),
        ("abs.f64", "f64_1", "f64", 1), ("neg.f64", "f64_1", "f64", 1),
        ("atom.add.f32", "atom_f32", "f32", 2),
        ("add.rn.f16", "b16_2", "f16", 2), ("mul.rn.f16", "b16_2", "f16", 2),
        ("fma.rn.f16", "b16_3", "f16", 3), ("fma.rn.ftz.sat.f16", "b16_3", "f16", 3),
        ("fma.rn.relu.f16", "b16_3", "f16", 3), ("min.f16", "b16_2", "f16", 2),
        ("max.NaN.f16", "b16_2", "f16", 2), ("add.rn.bf16", "b16_2", "bf16", 2),
        ("fma.rn.bf16", "b16_3", "bf16", 3), ("fma.rn.relu.bf16", "b16_3", "bf16", 3),
        ("add.rn.f16x2", "b32_2", "f16x2", 2), ("fma.rn.f16x2", "b32_3", "f16x2", 3),
        ("fma.rn.bf16x2", "b32_3", "bf16x2", 3), ("max.bf16x2", "b32_2", "bf16x2", 2),
        ("ex2.approx.f16", "b16_1", "f16", 1), ("tanh.approx.f16", "b16_1", "f16", 1),
        ("ex2.approx.ftz.bf16", "b16_1", "bf16", 1), ("tanh.approx.bf16", "b16_1", "bf16", 1),
        ("testp.finite.f32", "p_f32_1", "f32", 1), ("testp.subnormal.f32", "p_f32_1", "f32", 1),
        ("testp.normal.f64", "p_f64_1", "f64", 1), ("setp.ltu.f32", "p_f32_2", "f32", 2),
        ("setp.ne.f32", "p_f32_2", "f32", 2), ("setp.lt.s32", "p_b32_2", "i32", 2),
        ("setp.hi.u32", "p_b32_2", "i32", 2)]
for ty, cls, kind in (("u32", "b32_2", "i32"), ("s32", "b32_2", "i32"),
                      ("u64", "b64_2", "i64"), ("s64", "b64_2", "i64")):
    OPS += [(f"div.{ty}", cls, kind, 2), (f"rem.{ty}", cls, kind, 2),
            (f"mul.hi.{ty}", cls, kind, 2), (f"min.{ty}", cls, kind, 2),
            (f"shr.{ty.replace('u', 'b') if ty[0] == 'u' else ty}", cls + "sh", kind, 2)]
OPS += [("mul.wide.s32", "wide32", "i32", 2), ("mul.wide.u32", "wide32", "i32", 2),
        ("mul24.hi.u32", "b32_2", "i32", 2), ("mul24.hi.s32", "b32_2", "i32", 2),
        ("mul24.lo.s32", "b32_2", "i32", 2), ("mad24.hi.sat.s32", "b32_3", "i32", 3),
        ("mad.hi.sat.s32", "b32_3", "i32", 3), ("add.sat.s32", "b32_2", "i32", 2),
        ("sub.sat.s32", "b32_2", "i32", 2), ("sad.s32", "b32_3", "i32", 3),
        ("shl.b32", "b32_2", "i32", 2), ("bfe.u32", "b32_3", "i32", 3),
        ("bfe.s32", "b32_3", "i32", 3), ("bfe.s64", "bfe64", "i64", 3),
        ("bfi.b32", "bfi32", "i32", 3), ("bfind.u32", "b32_1", "i32", 1),
        ("bfind.s32", "b32_1", "i32", 1), ("bfind.shiftamt.s32", "b32_1", "i32", 1),
        ("clz.b32", "b32_1", "i32", 1), ("popc.b64", "b64to32_1", "i64", 1),
        ("brev.b32", "b32_1", "i32", 1), ("fns.b32", "b32_3", "i32", 3),
        ("bmsk.clamp.b32", "b32_2", "i32", 2), ("bmsk.wrap.b32", "b32_2", "i32", 2),
        ("szext.clamp.s32", "b32_2", "i32", 2), ("szext.wrap.u32", "b32_2", "i32", 2),
        ("shf.l.clamp.b32", "b32_3", "i32", 3), ("shf.r.wrap.b32", "b32_3", "i32", 3),
        ("dp4a.s32.u32", "b32_3", "i32", 3), ("dp2a.hi.s32.s32", "b32_3", "i32", 3),
        ("lop3.b32", "lop3", "i32", 3)]
for mode in ("", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"):
    OPS.append((f"prmt.b32{mode}", "b32_3", "i32", 3))
CVT = [("rni", "s32", "f32"), ("rni", "s32", "f64"), ("rzi", "u16", "f64"), ("rzi", "s64", "f32"), ("rzi", "u32", "f32"), ("rmi", "s64", "f64"), ("rpi", "u64", "f64"),
       ("rzi", "s8", "f32"), ("rni", "u16", "f32"), ("rzi", "s16", "f16"), ("rzi.ftz", "s32", "f32"),
       ("rn", "f32", "s64"), ("rz", "f32", "u64"), ("rm", "f32", "s32"), ("rp", "f64", "u64"),
       ("rn", "f16", "s32"), ("rz", "bf16", "u32"), ("rn", "f32", "f64"), ("rz", "f32", "f64"),
       ("rm", "f32", "f64"), ("rp", "f32", "f64"), ("", "f64", "f32"), ("", "f32", "f16"),
       ("", "f32", "bf16"), ("rn", "f16", "f32"), ("rz", "f16", "f32"), ("rm", "f16", "f32"),
       ("rp", "f16", "f32"), ("rn", "bf16", "f32"), ("rz", "bf16", "f32"), ("rn", "f16", "f64"),
       ("rn", "bf16", "f64"), ("rni", "f32", "f32"), ("rmi", "f64", "f64"), ("rpi.ftz", "f32", "f32"),
       ("ftz.sat", "f32", "f32"), ("rn.sat", "f32", "f64"), ("rna", "tf32", "f32"),
       ("rn.satfinite", "tf32", "f32"), ("rn.satfinite", "f16", "f32"), ("", "s32", "s8"),
       ("sat", "u8", "s32"), ("sat", "s16", "u32"), ("", "s8", "u32"), ("sat", "s32", "u64"),
       ("rn", "f16x2", "e4m3x2"), ("rn", "f16x2", "e5m2x2"), ("rn.satfinite", "e4m3x2", "f16x2"),
       ("rn.satfinite.relu", "e5m2x2", "f16x2")]
for rnd, dst, src in CVT:
    name = "cvt" + (f".{rnd}" if rnd else "") + f".{dst}.{src}"
    kind = {"f32": "f32", "f64": "f64", "f16": "f16", "bf16": "bf16", "e4m3x2": "u8x2",
            "e5m2x2": "u8x2", "f16x2": "f16x2"}.get(src, "i64" if src.endswith("64") else "i32")
    OPS.append((name, f"cvt:{dst}:{src}", kind, 1))
for dst in ("f16x2", "bf16x2", "e4m3x2", "e5m2x2"):
    OPS.append((f"cvt.rn.satfinite.{dst}.f32" if dst.startswith("e") else f"cvt.rn.{dst}.f32",
                f"pack:{dst}", "f32", 2))
OPS.append(("cvt.rn.relu.f16x2.f32", "pack:f16x2", "f32", 2))


# ---- PTX --------------------------------------------------------------------------------
def reg_of(ty):
    """(register, bits) holding a value of PTX type `ty` in the probe kernels."""
    if ty in ("f32",):
        return "%f1", 32
    if ty == "f64":
        return "%fd1", 64
    if ty in ("f16", "bf16", "e4m3x2", "e5m2x2", "s8", "u8", "s16", "u16"):
        return "%rs1", 16
    if ty.endswith("64"):
        return "%rd10", 64
    return "%r1", 32


def load(reg, bits, src):
    """PTX moving the 64-bit %rd1{src} into `reg`."""
    if bits == 64:
        return f"mov.b64 {reg}, %rd1{src};" if reg != f"%rd1{src}" else ""
    if bits == 32:
        tmp = f"%r1{src}"
        move = f"mov.b32 {reg}, {tmp};" if reg != tmp else ""
        return f"cvt.u32.u64 {tmp}, %rd1{src}; {move}"
    return f"cvt.u16.u64 {reg}, %rd1{src};"


def store(reg, bits):
    """PTX moving `reg` zero-extended into %rd20."""
    if bits == 64:
        return f"mov.b64 %rd20, {reg};"
    if bits == 32:
        return f"mov.b32 %r20, {reg}; cvt.u64.u32 %rd20, %r20;"
    return f"cvt.u64.u16 %rd20, {reg};"


def body(name, cls):
    ins = lambda regs: f"{name} {regs};"  # noqa: E731
    if cls in ("f32_1", "f32_2", "f32_3"):
        n = int(cls[-1])
        srcs = [f"%f{i + 1}" for i in range(n)]
        pre = " ".join(load(f"%f{i + 1}", 32, i) for i in range(n))
        return pre + ins(", ".join(["%f4"] + srcs)) + store("%f4", 32)
    if cls in ("f64_1", "f64_2", "f64_3"):
        n = int(cls[-1])
        pre = " ".join(load(f"%fd{i + 1}", 64, i) for i in range(n))
        return pre + ins(", ".join(["%fd4"] + [f"%fd{i + 1}" for i in range(n)])) + store("%fd4", 64)
    if cls in ("b16_1", "b16_2", "b16_3"):
        n = int(cls[-1])
        pre = " ".join(load(f"%rs{i + 1}", 16, i) for i in range(n))
        return pre + ins(", ".join(["%rs4"] + [f"%rs{i + 1}" for i in range(n)])) + store("%rs4", 16)
    if cls in ("b32_1", "b32_2", "b32_3", "b32_2sh"):
        n = int(cls[4])
        pre = " ".join(load(f"%r{i + 1}", 32, i) for i in range(n))
        return pre + ins(", ".join(["%r4"] + [f"%r{i + 1}" for i in range(n)])) + store("%r4", 32)
    if cls == "b64_2":
        return ins("%rd20, %rd10, %rd11")
    if cls == "b64_2sh":
        return load("%r2", 32, 1) + ins("%rd20, %rd10, %r2")
    if cls == "b64to32_1":
        return ins("%r4, %rd10") + store("%r4", 32)
    if cls == "bfe64":
        return load("%r2", 32, 1) + load("%r3", 32, 2) + ins("%rd20, %rd10, %r2, %r3")
    if cls == "wide32":
        return load("%r1", 32, 0) + load("%r2", 32, 1) + ins("%rd20, %r1, %r2")
    if cls == "bfi32":
        return (load("%r1", 32, 0) + load("%r2", 32, 1) + load("%r3", 32, 2)
                + "and.b32 %r5, %r3, 255; shr.b32 %r6, %r3, 8; and.b32 %r6, %r6, 255;"
                + ins("%r4, %r1, %r2, %r5, %r6") + store("%r4", 32))
    if cls == "lop3":
        pre = load("%r1", 32, 0) + load("%r2", 32, 1) + load("%r3", 32, 2)
        return pre + f"lop3.b32 %r4, %r1, %r2, %r3, 0x96; lop3.b32 %r5, %r1, %r2, %r3, 0xe8;" \
            + "lop3.b32 %r6, %r4, %r5, %r3, 0x1e;" + store("%r6", 32)
    if cls.startswith("p_"):
        kind, n = cls[2:-2], int(cls[-1])
        reg = {"f32": "%f", "f64": "%fd", "b32": "%r"}[kind]
        bits = {"f32": 32, "f64": 64, "b32": 32}[kind]
        pre = " ".join(load(f"{reg}{i + 1}", bits, i) for i in range(n))
        return (pre + ins(", ".join(["%p2"] + [f"{reg}{i + 1}" for i in range(n)]))
                + "selp.u64 %rd20, 1, 0, %p2;")
    if cls == "atom_f32":
        return (load("%r1", 32, 0) + load("%f2", 32, 1) + "st.global.u32 [%rd21], %r1;"
                + "atom.global.add.f32 %f5, [%rd21], %f2; ld.global.u32 %r4, [%rd21];"
                + store("%r4", 32))
    if cls.startswith("cvt:"):
        _, dst, src = cls.split(":")
        sreg, sbits = reg_of(src)
        dreg, dbits = reg_of(dst)
        dreg = {"%f1": "%f4", "%fd1": "%fd4", "%rs1": "%rs4", "%rd10": "%rd20", "%r1": "%r4"}[dreg]
        if dst in ("tf32", "f16x2", "bf16x2"):
            dreg, dbits = "%r4", 32
        if src in ("f16x2",):
            sreg, sbits = "%r1", 32
        return load(sreg, sbits, 0) + ins(f"{dreg}, {sreg}") + (
            store(dreg, dbits) if dreg != "%rd20" else "")
    if cls.startswith("pack:"):
        dst = cls.split(":")[1]
        dreg, dbits = ("%r4", 32) if dst.endswith("16x2") else ("%rs4", 16)
        return load("%f1", 32, 0) + load("%f2", 32, 1) + ins(f"{dreg}, %f1, %f2") + store(dreg, dbits)
    raise ValueError(cls)


def module(name, cls):
    return f""".version 8.5
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd,
                      .param .u32 n)
{{
  .reg .pred %p<4>; .reg .b16 %rs<8>; .reg .b32 %r<24>; .reg .b64 %rd<24>;
  .reg .f32 %f<8>; .reg .f64 %fd<8>;
  mov.u32 %r20, %tid.x; mov.u32 %r21, %ctaid.x; mov.u32 %r22, %ntid.x;
  mad.lo.u32 %r20, %r21, %r22, %r20; ld.param.u32 %r21, [n];
  setp.ge.u32 %p1, %r20, %r21; @%p1 bra DONE;
  mul.wide.u32 %rd1, %r20, 8;
  ld.param.u64 %rd2, [pa]; add.u64 %rd2, %rd2, %rd1; ld.global.u64 %rd10, [%rd2];
  ld.param.u64 %rd2, [pb]; add.u64 %rd2, %rd2, %rd1; ld.global.u64 %rd11, [%rd2];
  ld.param.u64 %rd2, [pc]; add.u64 %rd2, %rd2, %rd1; ld.global.u64 %rd12, [%rd2];
  ld.param.u64 %rd21, [pd]; add.u64 %rd21, %rd21, %rd1;
  {body(name, cls)}
  st.global.u64 [%rd21], %rd20;
DONE:
  ret;
}}
"""


# ---- driver -------------------------------------------------------------------------------
def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--emit-ptx":
        # Writes the modules without running them (to check them with any PTX parser).
        for i, (name, cls, _, _) in enumerate(OPS):
            with open(f"{sys.argv[2]}/{i:03}_{name}.ptx", "w") as f:
                f.write(module(name, cls))
        return
    out_path = sys.argv[1] if len(sys.argv) > 1 else "numeric_probe.txt"
    cuda = ctypes.CDLL("libcuda.so.1")
    u64, vp, sz, u32 = ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
    cuda.cuMemAlloc_v2.argtypes = [ctypes.POINTER(u64), sz]
    cuda.cuMemFree_v2.argtypes = [u64]
    cuda.cuMemcpyHtoD_v2.argtypes = [u64, vp, sz]
    cuda.cuMemcpyDtoH_v2.argtypes = [vp, u64, sz]
    cuda.cuModuleLoadDataEx.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, u32,
                                        ctypes.POINTER(ctypes.c_int), ctypes.POINTER(vp)]
    cuda.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
    cuda.cuModuleUnload.argtypes = [vp]
    cuda.cuLaunchKernel.argtypes = [vp, u32, u32, u32, u32, u32, u32, u32, vp,
                                    ctypes.POINTER(vp), ctypes.POINTER(vp)]

    def check(status, what):
        if status != 0:
            raise RuntimeError(f"{what}: CUDA error {status}")

    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    with open(out_path, "w") as out:
        for name, cls, kind, arity in OPS:
            rows = operands(kind, arity)
            text = module(name, cls).encode() + b"\0"
            mod = ctypes.c_void_p()
            log = ctypes.create_string_buffer(8192)
            opts = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER(_SIZE_BYTES)
            vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(8192))
            if cuda.cuModuleLoadDataEx(ctypes.byref(mod), text, 2, opts, vals) != 0:
                why = " | ".join(log.value.decode(errors="replace").split("\n")).strip(" |")
                out.write(f"# skipped {name}: {why}\n")
                continue
            fn = ctypes.c_void_p()
            check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"probe"), "GetFunction")
            n = len(rows)
            bufs = []
            for col in range(4):
                ptr = ctypes.c_uint64()
                check(cuda.cuMemAlloc_v2(ctypes.byref(ptr), 8 * n), "cuMemAlloc")
                if col < 3:
                    data = struct.pack(f"<{n}Q", *[r[col] for r in rows])
                    check(cuda.cuMemcpyHtoD_v2(ptr, data, 8 * n), "HtoD")
                bufs.append(ptr)
            count = ctypes.c_uint32(n)
            params = (ctypes.c_void_p * 5)(*[ctypes.cast(ctypes.byref(b), ctypes.c_void_p)
                                             for b in bufs],
                                           ctypes.cast(ctypes.byref(count), ctypes.c_void_p))
            check(cuda.cuLaunchKernel(fn, (n + 127) // 128, 1, 1, 128, 1, 1, 0, None, params,
                                      None), f"launch {name}")
            check(cuda.cuCtxSynchronize(), f"sync {name}")
            result = ctypes.create_string_buffer(8 * n)
            check(cuda.cuMemcpyDtoH_v2(result, bufs[3], 8 * n), "DtoH")
            ds = struct.unpack(f"<{n}Q", result.raw)
            for (a, b, c), d in zip(rows, ds):
                out.write(f"{name}\t{cls}\t{a:x}\t{b:x}\t{c:x}\t{d:x}\n")
            for b in bufs:
                cuda.cuMemFree_v2(b)
            cuda.cuModuleUnload(mod)
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
