"""NVRTC corpus cases: bit operations, integer arithmetic, directed rounding, library math in
f32 and f64 (within tolerances), and fast-math approximations, with host expectations."""

import math
from fractions import Fraction

from case_model import EXACT, Rand, case, rel, ulp
from cases_nvrtc_core import NVRTC, N, wrap
from elements import f32, fma, round_to

M32 = 0xFFFFFFFF


def brev(v, bits):
    return int(format(v, "0%db" % bits)[::-1], 2)


def clz(v, bits):
    return bits - v.bit_length()


def ffs(v):
    return (v & -v).bit_length()


def byte_perm(x, y, selector):
    pool = (y << 32 | x).to_bytes(8, "little")
    return int.from_bytes(bytes(pool[(selector >> (4 * n)) & 7] for n in range(4)), "little")


def bitops32(ins):
    out = []
    vals = ins[0]
    for i, v in enumerate(vals):
        w = vals[(i + 1) & 31]
        pair = w << 32 | v
        s = i & 31
        out += [brev(v, 32), clz(v, 32), bin(v).count("1"), ffs(v), byte_perm(v, w, 0x5140),
                (pair << s >> 32) & M32, (pair >> s) & M32, (v * w) >> 32,
                (abs(wrap(v) - wrap(w)) + 3) & M32,
                ((v >> s) | (w << ((32 - i) & 31))) & M32]
    return {1: out}


def bitops64(ins):
    out = []
    for v in ins[0]:
        out += [brev(v, 64), clz(v, 64), bin(v).count("1"), ffs(v),
                (v * (v ^ 0x9E3779B97F4A7C15)) >> 64]
    return {1: out}


def c_div(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def int_arith(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        ax, ay = wrap(abs(x)), wrap(abs(y))
        out += [x * y, (x * y) >> 32, c_div(x, y) if y else 0, x - c_div(x, y) * y if y else 0,
                x if ax > ay else y, (x >> 3) & 0x1F]
    return {2: out}


def rounding_f32(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        fx, fy = Fraction(x), Fraction(y)
        scaled = f32(x * 1000.0)
        out += [round_to("f32", fx + fy, "rz"), round_to("f32", fx * fy, "ru"),
                round_to("f32", fx / fy, "rd"), fma("f32", x, y, 1.0),
                min(max(x, 0.0), 1.0), float(round(scaled))]
    return {2: out}


def rounding_f64(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        fx, fy = Fraction(x), Fraction(y)
        out += [x + y, round_to("f64", fx + fy, "rz"), round_to("f64", fx * fy, "ru"),
                round_to("f64", fx / fy, "rd")]
    return {2: out}


def precise_math(ins):
    out = []
    for v in ins[0]:
        out += [math.exp(v), math.sin(v), math.erf(v), abs(v) ** 2.5, math.log(f32(abs(v) + 1.0)),
                math.sqrt(abs(v)), v / f32(v + 3.0), math.tanh(v)]
    return {1: (out, ulp("f32", 4))}


def fast_intrinsics(ins):
    out = []
    for v in ins[0]:
        out += [math.exp(v), math.sin(v), math.cos(v), math.log(f32(abs(v) + 1.0)), v / f32(v + 3.0),
                1.0 / math.sqrt(f32(abs(v) + 1.0))]
    return {1: (out, rel("f32", 2e-5))}


def math_f64(ins):
    out = []
    for v in ins[0]:
        out += [math.exp(v), math.sin(v), math.sqrt(abs(v)), math.log(abs(v) + 1.0), math.cos(v),
                abs(v) ** 1.5, float(round(v * 3.0)), 1.0 / v]
    return {1: (out, ulp("f64", 2))}


def dot_f64(ins):
    a, b = ins[0], ins[1]
    partial = []
    for t in range(256):
        s = 0.0
        for i in range(t, len(a), 256):
            s = fma("f64", a[i], b[i], s)
        partial.append(s)
    k = 128
    while k > 0:
        for t in range(k):
            partial[t] += partial[t + k]
        k //= 2
    return {2: [partial[0]]}


CASES = [
    # Bit operations and integer arithmetic.
    case("bitops32", f"{NVRTC}/bitops.ptx", "bitops32", "1", "32",
         [Rand("u32", 32, 0, 2**32 - 1, 35), "u32[320]=zeros"], {1: EXACT}, expect=bitops32),
    case("bitops64", f"{NVRTC}/bitops.ptx", "bitops64", "1", "32",
         [Rand("u64", 32, 0, 2**64 - 1, 36), "u64[160]=zeros"], {1: EXACT}, expect=bitops64),
    case("int_arith", f"{NVRTC}/bitops.ptx", "int_arith", "1", "64",
         [Rand("i32", 64, -2**31, 2**31 - 1, 37), Rand("i32", 64, -1000, 1000, 38), "i64[384]=zeros"],
         {2: EXACT}, expect=int_arith),
    # Floating point: directed rounding is exact; library math within tolerances.
    case("rounding_f32", f"{NVRTC}/float_math.ptx", "rounding_f32", "1", "64",
         [Rand("f32", 64, -3, 3, 39), Rand("f32", 64, 0.1, 3, 40), "f32[384]=zeros"], {2: EXACT},
         expect=rounding_f32),
    case("rounding_f64", f"{NVRTC}/double_math.ptx", "rounding_f64", "1", "64",
         [Rand("f64", 64, -3, 3, 41), Rand("f64", 64, 0.1, 3, 42), "f64[256]=zeros"], {2: EXACT},
         expect=rounding_f64),
    case("precise_math", f"{NVRTC}/float_math.ptx", "precise_math", "1", "128",
         [Rand("f32", 128, -4, 4, 43), "f32[1024]=zeros", "i32:128"], {1: ulp("f32", 4)},
         expect=precise_math),
    case("fast_intrinsics", f"{NVRTC}/float_math.fast.ptx", "fast_intrinsics", "1", "128",
         [Rand("f32", 128, -4, 4, 44), "f32[768]=zeros", "i32:128"], {1: rel("f32", 2e-5)},
         expect=fast_intrinsics),
    case("math_f64", f"{NVRTC}/double_math.ptx", "math_f64", "1", "128",
         [Rand("f64", 128, -4, 4, 45), "f64[1024]=zeros", "i32:128"], {1: EXACT}, expect=math_f64),
    case("dot_f64", f"{NVRTC}/double_math.ptx", "dot_f64", "1", "256",
         [Rand("f64", N, -1, 1, 46), Rand("f64", N, -1, 1, 47), "f64[1]=zeros", f"i32:{N}"], {2: EXACT},
         expect=dot_f64),
]

