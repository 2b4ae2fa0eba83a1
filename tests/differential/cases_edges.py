"""Edge-value cases: the NVRTC kernels again, fed NaN, infinities, signed zeros, subnormals,
overflowing conversions and extreme integers, where an emulator most easily departs from what
PTX specifies (saturating float-to-int conversion, NaN-ignoring min/max, directed rounding at
overflow, f16/bf16 rounding, large-argument trigonometry)."""

import math
from fractions import Fraction

from case_model import EXACT, Rand, Values, case, ulp
from cases_nvrtc_core import NVRTC
from cases_nvrtc_math import bitops32, bitops64, int_arith
from elements import fma, ieee, round_to

NAN, INF = math.nan, math.inf
INT_MIN, INT_MAX = -2**31, 2**31 - 1
F32_SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 3e38, -3e38, 1e-45, -1e-45, 1.0, -2.5, 0.1]
F32_DIVISORS = [INF, -INF, 0.0, -0.0, 3e38, 1e-45, 1.0, -3.0]
F64_SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 1.7e308, -1.7e308, 5e-324, -5e-324, 1.0, -2.5, 0.1]
F64_DIVISORS = [INF, -INF, 0.0, -0.0, 1.7e308, 5e-324, 1.0, -3.0]


def pairs(xs, ys):
    return [x for x in xs for _ in ys], [y for _ in xs for y in ys]


def cvt_int(v, lo, hi, rounding=math.trunc):
    """cvt.rzi/.rni to an integer type: NaN gives 0, out-of-range values saturate."""
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(rounding(v), lo), hi)


def fmax(x, y, zeros_unchecked=True):
    """max.f32: NaN loses to a number; -0.0 against +0.0 is left unchecked (None)."""
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if zeros_unchecked and x == 0 and y == 0 and math.copysign(1, x) != math.copysign(1, y):
        return None
    return max(x, y)


def fmin(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    return min(x, y)


def fma_ieee(ty, x, y, z):
    if not all(math.isfinite(v) for v in (x, y, z)):
        return x * y + z if not (math.isinf(x * y) and math.isinf(z) and (x * y) != z) else NAN
    if Fraction(x) * Fraction(y) + Fraction(z) == 0:
        product_negative = (math.copysign(1, x) < 0) != (math.copysign(1, y) < 0)
        return -0.0 if product_negative and math.copysign(1, z) < 0 else 0.0
    return fma(ty, x, y, z)


def convert_mix(ins):
    vals = ins[0]
    return {1: [cvt_int(v, INT_MIN, INT_MAX) for v in vals],
            2: [cvt_int(fmin(fmax(v, 0.0, False), 255.0), 0, 2**32 - 1) & 0xFF for v in vals],
            3: [v * 0.5 for v in vals]}


def saturate(x):
    if math.isnan(x):
        return 0.0
    if x == 0 and math.copysign(1, x) < 0:
        return None
    return min(max(x, 0.0), 1.0)


def rounding_f32(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        scaled = ieee("f32", "mul", x, 1000.0)
        as_int = cvt_int(scaled, INT_MIN, INT_MAX, round)
        out += [ieee("f32", "add", x, y, "rz"), ieee("f32", "mul", x, y, "ru"),
                ieee("f32", "div", x, y, "rd"), fma_ieee("f32", x, y, 1.0), saturate(x),
                round_to("f32", as_int, "rz") if as_int else 0.0]
    return {2: out}


def rounding_f64(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        out += [ieee("f64", "add", x, y), ieee("f64", "add", x, y, "rz"),
                ieee("f64", "mul", x, y, "ru"), ieee("f64", "div", x, y, "rd")]
    return {2: out}


def half_convert(ins):
    h = [round_to("f16", v) for v in ins[0]]
    return {1: h, 2: [round_to("f16", v + 1.0) for v in h]}


def bf16_axpy(ins):
    return {2: [round_to("bf16", fma_ieee("f32", ins[0], x, y)) for x, y in zip(ins[1], ins[2])]}


def safe(fn, *args):
    try:
        return fn(*args)
    except (ValueError, OverflowError, ZeroDivisionError):
        return NAN


def precise_math(ins):
    out = []
    for v in ins[0]:
        av = abs(v)
        out += [safe(math.exp, v) if not v >= 100 else INF, safe(math.sin, v), safe(math.erf, v),
                safe(pow, av, 2.5) if not av >= 1e30 else INF, safe(math.log, round_to("f32", av + 1.0)),
                safe(math.sqrt, av), ieee("f32", "div", v, round_to("f32", v + 3.0)), safe(math.tanh, v)]
    return {1: ([round_to("f32", x) for x in out], ulp("f32", 4))}


def pad(values, count, ty, seed):
    return values + Rand(ty, count - len(values), 0, 2**32 - 1, seed).values()


X32, Y32 = pairs(F32_SPECIALS, F32_DIVISORS)
X64, Y64 = pairs(F64_SPECIALS, F64_DIVISORS)
CONVERT_IN = [NAN, INF, -INF, 3e9, -3e9, 2147483520.0, 2147483648.0, -2147483648.0, -0.0, 0.0,
              1e-45, -1e-40, 0.5, -0.5, 0.99999994, 255.0, 255.5, 256.0, -1.5, 1e38, 123.75]
HALF_IN = [NAN, INF, -INF, 65504.0, 65519.0, 65520.0, 1e5, 1e-8, 6e-8, 3e-8, -0.0, 2049.0, 2051.0,
           -2050.0, 0.333333, 1e-5]
BF16_X = [NAN, INF, -INF, 3.3e38, -3.3e38, 1e-38, 2.0, -0.0, 1.0]
BF16_Y = [1.0, 1.0, INF, 3.3e38, 3.3e38, -1e-38, 3.0, -0.0, 1.5]
INT_A = [INT_MIN, INT_MAX, -1, 0, 1, INT_MIN, INT_MAX, -7, 7, INT_MIN, 12345]
INT_B = [1, -1, INT_MIN, INT_MAX, 0, 2, INT_MIN, 2, -2, INT_MAX, 0]
MAX_A = [NAN, 1.0, NAN, -0.0, 0.0, INF, -INF, -1e-45]
MAX_B = [2.0, NAN, NAN, 0.0, -0.0, NAN, 3.0, 1e-45]
MATH_IN = [NAN, INF, -INF, 0.0, -0.0, 1e-45, 88.7, 89.0, -103.0, -104.0, 1e10, -1e10, 3e38, 1e-30,
           -3.0, 1e4]

CASES = [
    case("edges_convert_mix", f"{NVRTC}/elementwise.ptx", "convert_mix", "1", "32",
         [Values("f32", CONVERT_IN), "i32[21]=zeros", "u8[21]=zeros", "f64[21]=zeros", "i32:21"],
         {1: EXACT, 2: EXACT, 3: EXACT}, expect=convert_mix),
    case("edges_rounding_f32", f"{NVRTC}/float_math.ptx", "rounding_f32", "1", str(len(X32)),
         [Values("f32", X32), Values("f32", Y32), f"f32[{6 * len(X32)}]=zeros"], {2: EXACT},
         expect=rounding_f32),
    case("edges_rounding_f64", f"{NVRTC}/double_math.ptx", "rounding_f64", "1", str(len(X64)),
         [Values("f64", X64), Values("f64", Y64), f"f64[{4 * len(X64)}]=zeros"], {2: EXACT},
         expect=rounding_f64),
    case("edges_half_convert", f"{NVRTC}/half.ptx", "half_convert", "1", "32",
         [Values("f32", HALF_IN), f"f16[{len(HALF_IN)}]=zeros", f"f32[{len(HALF_IN)}]=zeros",
          f"i32:{len(HALF_IN)}"], {1: EXACT, 2: EXACT}, expect=half_convert),
    case("edges_bf16_axpy", f"{NVRTC}/half.ptx", "bf16_axpy", "1", "32",
         ["f32:-1.5", Values("bf16", BF16_X), Values("bf16", BF16_Y), f"i32:{len(BF16_X)}"], {2: EXACT},
         expect=bf16_axpy),
    case("edges_int_arith", f"{NVRTC}/bitops.ptx", "int_arith", "1", str(len(INT_A)),
         [Values("i32", INT_A), Values("i32", INT_B), f"i64[{6 * len(INT_A)}]=zeros"], {2: EXACT},
         expect=int_arith),
    case("edges_bitops32", f"{NVRTC}/bitops.ptx", "bitops32", "1", "32",
         [Values("u32", pad([0, 2**32 - 1, 1, 2**31, 2**31 - 1, 0x10000, 0xDEADBEEF, 0xFF, 0xFF000000],
                            32, "u32", 501)), "u32[320]=zeros"], {1: EXACT}, expect=bitops32),
    case("edges_bitops64", f"{NVRTC}/bitops.ptx", "bitops64", "1", "32",
         [Values("u64", [0, 2**64 - 1, 1, 2**63, 2**63 - 1, 2**32, 0x9E3779B97F4A7C15] + [2**k for k in range(25)]),
          "u64[160]=zeros"], {1: EXACT}, expect=bitops64),
    case("edges_fmaxf_nan", f"{NVRTC}/device_funcs.ptx", "call_indirect", "1", "32",
         [Values("f32", MAX_A), Values("f32", MAX_B), f"f32[{len(MAX_A)}]=zeros", "i32:2", f"i32:{len(MAX_A)}"],
         {2: EXACT}, expect=lambda ins: {2: [fmax(a, b) for a, b in zip(ins[0], ins[1])]}),
    case("edges_precise_math", f"{NVRTC}/float_math.ptx", "precise_math", "1", "32",
         [Values("f32", MATH_IN), f"f32[{8 * len(MATH_IN)}]=zeros", f"i32:{len(MATH_IN)}"], {1: ulp("f32", 4)},
         expect=precise_math),
]

