"""Probe kernel for packed half and bfloat16 instructions (kernels/probes.cu `packed_half`):
add/mul/fma/fma.relu/min/max.NaN/neg/abs on f16x2, cvt.rn[.relu].f16x2.f32 and
cvt.rn.bf16x2.f32 (the first source goes to the upper half), fma/min/max.NaN on bf16x2; each
checked against IEEE arithmetic rounded once, as the PTX ISA defines them."""

import math
import struct

from case_model import EXACT, Rand, Values, case
from cases_edges import fma_ieee
from cases_probes import PROBES
from elements import ieee, round_to

NAN, INF = math.nan, math.inf


def min_num(x, y):
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == 0 and y == 0 and math.copysign(1, x) != math.copysign(1, y):
        return None
    return min(x, y)


def max_nan(x, y):
    if math.isnan(x) or math.isnan(y):
        return NAN
    if x == 0 and y == 0 and math.copysign(1, x) != math.copysign(1, y):
        return None
    return max(x, y)


def relu(v):
    if v is None or math.isnan(v) or v == 0:
        return None  # NaN and the sign of a zero result are left to the device comparison
    return max(v, 0.0)


def bits(ty, v):
    if v is None:
        return None
    if ty == "f16":
        return struct.unpack("<H", struct.pack("<e", round_to("f16", v)))[0]
    return struct.unpack("<I", struct.pack("<f", round_to("bf16", v)))[0] >> 16


def as_bf16(f16_value):
    """The bfloat16 value whose bits are those of an f16 value."""
    raw = struct.unpack("<H", struct.pack("<e", f16_value))[0]
    return struct.unpack("<f", struct.pack("<I", raw << 16))[0]


def packed_half(ins):
    a, b, c, f = ins[0], ins[1], ins[2], ins[4]
    h, packed = [], []
    for i in range(len(a) // 2):
        lanes = range(2 * i, 2 * i + 2)
        for op in ("add", "mul", "fma", "relu", "min", "max", "neg", "abs"):
            for k in lanes:
                x, y, z = a[k], b[k], c[k]
                h.append({"add": lambda: ieee("f16", "add", x, y), "mul": lambda: ieee("f16", "mul", x, y),
                          "fma": lambda: fma_ieee("f16", x, y, z), "relu": lambda: relu(fma_ieee("f16", x, y, z)),
                          "min": lambda: min_num(x, y), "max": lambda: max_nan(x, y),
                          "neg": lambda: -x, "abs": lambda: abs(x)}[op]())
        p, q = f[2 * i], f[2 * i + 1]
        packed += [bits("f16", q), bits("f16", p), bits("f16", relu(q)), bits("f16", relu(p)),
                   bits("bf16", q), bits("bf16", p)]
        for op in ("fma", "min", "max"):
            for k in lanes:
                x, y, z = as_bf16(a[k]), as_bf16(b[k]), as_bf16(c[k])
                v = {"fma": lambda: round_to("bf16", fma_ieee("f32", x, y, z)) if math.isfinite(
                    fma_ieee("f32", x, y, z)) else fma_ieee("f32", x, y, z),
                     "min": lambda: min_num(x, y), "max": lambda: max_nan(x, y)}[op]()
                packed.append(None if v is None or math.isnan(v) else bits("bf16", v))
    return {3: h, 5: packed}


SPECIALS = [NAN, INF, -INF, 0.0, -0.0, 65504.0, -65504.0, 6e-8, -6e-8, 1.0, -1.0, 0.5, 1e-4, 2.0, 300.0, -0.001]
FLOATS = [1e5, -1e5, 65519.0, 65520.0, 1e-8, -1e-8, 0.1, -0.1, 3.4e38, 1.00390625, 1.01171875, -0.0, 0.0,
          2049.0, 2051.0, -3.0]

CASES = [
    case("probe_packed_half", PROBES, "packed_half", "1", "32",
         [Values("f16", SPECIALS + Rand("f16", 48, -8, 8, 717).values()),
          Values("f16", SPECIALS[::-1] + Rand("f16", 48, -8, 8, 718).values()),
          Values("f16", SPECIALS[3:] + SPECIALS[:3] + Rand("f16", 48, -8, 8, 719).values()),
          "f16[512]=zeros", Values("f32", FLOATS + Rand("f32", 48, -70000, 70000, 720).values()),
          "u16[384]=zeros"], {3: EXACT, 5: EXACT}, expect=packed_half),
]
