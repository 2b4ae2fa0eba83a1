"""Probe kernels for floating-point modes (kernels/probes.cu): flush-to-zero arithmetic, the
special-input tables of the approximate instructions (f32, and ex2/tanh on f16x2), testp classes, sign operations on NaN and
zeros, dp4a/dp2a, clamped funnel shifts and f32 to 64-bit integer conversions, each checked
against the PTX ISA's definition computed on the host."""

import math
import struct

from case_model import EXACT, Rand, Values, case, rel
from cases_nvrtc_core import wrap
from cases_probes import PROBES, cvt_int
from elements import ieee, round_to

NAN, INF = math.nan, math.inf
MIN_NORMAL = 2.0**-126


def flush(x):
    return math.copysign(0.0, x) if x != 0 and abs(x) < MIN_NORMAL else x


def ieee_sqrt(x):
    if math.isnan(x) or x < 0:
        return NAN
    if x == 0 or math.isinf(x):
        return x
    return round_to("f32", math.sqrt(x))


def fmin(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == 0 and y == 0 and math.copysign(1, x) != math.copysign(1, y):
        return None
    return min(x, y)


def fma_ftz(x, y, z):
    if not all(math.isfinite(v) for v in (x, y, z)):
        return x * y + z
    product = ieee("f64", "mul", x, y)  # exact for f32 operands
    return ieee("f32", "add", product, z) if product != 0 or z != 0 else ieee("f32", "add", product, z)


def ftz_ops(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        fx, fy = flush(x), flush(y)
        out += [flush(ieee("f32", "add", fx, fy)), flush(ieee("f32", "mul", fx, fy)),
                flush(fma_ftz(fx, fy, fx)), flush(ieee("f32", "div", fx, fy)), flush(ieee_sqrt(fx)),
                fmin(fx, fy)]
    return {2: out}


# Results the PTX ISA tabulates for NaN, -inf, -0.0, +0.0, +inf (ex2, lg2, rcp, rsqrt, sqrt,
# sin, cos, tanh .approx.f32).
SPECIAL_IN = [NAN, -INF, -0.0, 0.0, INF]
SPECIAL_OUT = {
    "ex2": [NAN, 0.0, 1.0, 1.0, INF], "lg2": [NAN, NAN, -INF, -INF, INF],
    "rcp": [NAN, -0.0, -INF, INF, 0.0], "rsqrt": [NAN, NAN, -INF, INF, 0.0],
    "sqrt": [NAN, NAN, -0.0, 0.0, INF], "sin": [NAN, NAN, -0.0, 0.0, NAN],
    "cos": [NAN, NAN, 1.0, 1.0, NAN], "tanh": [NAN, -1.0, -0.0, 0.0, 1.0]}
FUNCS = ("ex2", "lg2", "rcp", "rsqrt", "sqrt", "sin", "cos", "tanh")
FINITE_IN = [-1.0, 0.5, 1.0, 2.0, 3.0, -3.0, 0.1, 1.5]


def approx_finite(ins):
    def value(f, x):
        if f in ("lg2", "rsqrt", "sqrt") and x < 0:
            return NAN
        return {"ex2": lambda: 2.0**x, "lg2": lambda: math.log2(x), "rcp": lambda: 1 / x,
                "rsqrt": lambda: 1 / math.sqrt(x), "sqrt": lambda: math.sqrt(x),
                "sin": lambda: math.sin(x), "cos": lambda: math.cos(x), "tanh": lambda: math.tanh(x)}[f]()
    return {1: ([value(f, x) for x in ins[0] for f in FUNCS], rel("f32", 1e-3))}


def flags(x):
    """testp.finite, .infinite, .number, .notanumber, .normal, .subnormal as bits 0-5; the PTX
    ISA counts both zeros as normal numbers."""
    finite = math.isfinite(x)
    subnormal = x != 0 and abs(x) < MIN_NORMAL
    bits = [finite, math.isinf(x), not math.isnan(x), math.isnan(x), finite and not subnormal,
            subnormal]
    return sum(int(b) << k for k, b in enumerate(bits))


def sbytes(v):
    return [b - 256 if b > 127 else b for b in (v & 0xFFFFFFFF).to_bytes(4, "little")]


def shalves(v):
    return [h - 65536 if h > 32767 else h for h in struct.unpack("<2H", (v & 0xFFFFFFFF).to_bytes(4, "little"))]


def classify(ins):
    x, y = ins[0], ins[1]
    dots, shifts = [], []
    for i, v in enumerate(y):
        u, nu = v & 0xFFFFFFFF, ~v & 0xFFFFFFFF
        other = sbytes(wrap(v * 31))
        dots += [wrap(sum(a * b for a, b in zip(sbytes(v), sbytes(v ^ 0x5A5A5A5A))) + 7),
                 wrap(shalves(v)[0] * other[0] + shalves(v)[1] * other[1] - 3),
                 wrap(sum(a * b for a, b in zip(u.to_bytes(4, "little"), nu.to_bytes(4, "little"))) + 1)]
        s = min(i * 3, 32)
        pair = nu << 32 | u
        shifts += [(pair << s >> 32) & 0xFFFFFFFF, (pair >> s) & 0xFFFFFFFF]
    return {2: [flags(v) for v in x],
            3: [w for v in x for w in (abs(v), -v, math.copysign(2.0, v))],
            4: dots, 5: shifts,
            6: [w for v in x for w in (cvt_int(v, -2**63, 2**63 - 1, math.trunc),
                                       wrap(cvt_int(v, 0, 2**64 - 1, round), 64))]}


FTZ_X = [1e-40, -1e-40, 1e-38, 2e-38, 1.0, -1.0, 3.0, 0.0, -0.0, 1e-45, 2e-38, 5e-39, -4.0, 1e-39, 9.0, 1e-30]
FTZ_Y = [1.0, 0.5, 1e-40, 0.5, -1e-39, 3.0, 1e-38, -1e-40, 2.0, 1e-45, 1e-20, 1.0, 1e-40, -1e-39, 3e-39, 1e-9]
CLASS_IN = [NAN, INF, -INF, 0.0, -0.0, 1e-40, -1e-40, 1.0, -2.5, 3e38, MIN_NORMAL, -1e-45, 1e-45, 100.5,
            -100.5, 2.5e9, -2.5e9, 1e19, 2e19, -1e19, 0.5, 1.5, 2.5, -0.5, 4294967296.0, -1.0, 9.3e18,
            -9.3e18, 1.8e19, 3.5, 7.5, 16777216.0]

HALF_SPECIALS = [NAN, -INF, -0.0, 0.0, INF, NAN]  # an even count: f16x2 pairs
HALF_FINITE = [-1.0, 0.5, 1.0, 2.0, 3.0, -3.0, 0.125, 1.5, -0.25, 4.0]


def special_index(x):
    """Position of x in SPECIAL_IN, telling -0.0 from +0.0."""
    if math.isnan(x):
        return 0
    return next(k for k, v in enumerate(SPECIAL_IN)
                if v == x and math.copysign(1, v) == math.copysign(1, x))


def approx_half(ins, finite):
    out = []
    for k in range(0, len(ins[0]), 2):
        pair = ins[0][k:k + 2]
        if finite:
            out += [2.0**x for x in pair] + [math.tanh(x) for x in pair]
        else:
            out += [SPECIAL_OUT[f][special_index(x)] for f in ("ex2", "tanh") for x in pair]
    return {1: (out, rel("f16", 4e-3)) if finite else out}


CASES = [
    case("probe_ftz_ops", PROBES, "ftz_ops", "1", str(len(FTZ_X)),
         [Values("f32", FTZ_X), Values("f32", FTZ_Y), f"f32[{6 * len(FTZ_X)}]=zeros"], {2: EXACT},
         expect=ftz_ops),
    case("probe_approx_specials", PROBES, "approx_specials", "1", str(len(SPECIAL_IN)),
         [Values("f32", SPECIAL_IN), f"f32[{8 * len(SPECIAL_IN)}]=zeros"], {1: EXACT},
         expect=lambda ins: {1: [SPECIAL_OUT[f][k] for k in range(len(SPECIAL_IN)) for f in FUNCS]}),
    case("probe_approx_finite", PROBES, "approx_specials", "1", str(len(FINITE_IN)),
         [Values("f32", FINITE_IN), f"f32[{8 * len(FINITE_IN)}]=zeros"], {1: rel("f32", 1e-3)},
         expect=approx_finite),
    case("probe_approx_half_specials", PROBES, "approx_half", "1", str(len(HALF_SPECIALS) // 2),
         [Values("f16", HALF_SPECIALS), f"f16[{2 * len(HALF_SPECIALS)}]=zeros"], {1: EXACT},
         expect=lambda ins: approx_half(ins, False)),
    case("probe_approx_half_finite", PROBES, "approx_half", "1", str(len(HALF_FINITE) // 2),
         [Values("f16", HALF_FINITE), f"f16[{2 * len(HALF_FINITE)}]=zeros"], {1: rel("f16", 4e-3)},
         expect=lambda ins: approx_half(ins, True)),
    case("probe_classify", PROBES, "classify", "1", "32",
         [Values("f32", CLASS_IN), Rand("i32", 32, -2**31, 2**31 - 1, 711), "u32[32]=zeros", "f32[96]=zeros",
          "i32[96]=zeros", "u32[64]=zeros", "i64[64]=zeros"], {2: EXACT, 3: EXACT, 4: EXACT, 5: EXACT, 6: EXACT},
         expect=classify),
]
