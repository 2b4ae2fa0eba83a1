"""Element types of saved buffers: widths, packing, decoding, and exact float rounding.

Shared by the case lists (building inputs, computing host expectations), compare.py and
verify.py. Types are the `chevron run` SPEC types: i8 … u64, f16, bf16, f32, f64.
"""

import math
import struct
from fractions import Fraction

WIDTHS = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4,
          "f32": 4, "i64": 8, "u64": 8, "f64": 8}
FORMATS = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "f16": "e", "i32": "i", "u32": "I",
           "f32": "f", "i64": "q", "u64": "Q", "f64": "d"}
FLOATS = ("f16", "bf16", "f32", "f64")
# Bits of significand (with the hidden bit) and minimum normal exponent of each float type.
_FLOAT_SHAPE = {"f16": (11, -14), "bf16": (8, -126), "f32": (24, -126), "f64": (53, -1022)}


def is_float(ty):
    return ty in FLOATS


def round_to(ty, value, mode="rn"):
    """`value` (an int, a Python float or a Fraction) rounded to a `ty` value: `rn` nearest
    (ties to even), `rz` toward zero, `ru` up, `rd` down, as PTX's rounding modifiers.

    Exact: a Fraction is rounded once, so fma and exact sums need no double rounding."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value) or value == 0:
            return value  # zeros keep their sign
        if mode == "rn" and ty in ("f32", "f16"):
            fmt = "<f" if ty == "f32" else "<e"
            try:
                return struct.unpack(fmt, struct.pack(fmt, value))[0]
            except OverflowError:
                return math.copysign(math.inf, value)
        if ty == "f64":
            return value
    num, den = Fraction(value).as_integer_ratio()
    if den & (den - 1) == 0:
        return _round_dyadic(ty, num, den.bit_length() - 1, mode)
    return _round_fraction(ty, Fraction(num, den), mode)


def _round_dyadic(ty, num, k, mode):
    """num * 2^-k rounded to `ty`, with integers only."""
    if num == 0:
        return 0.0
    digits, emin = _FLOAT_SHAPE[ty]
    sign = -1 if num < 0 else 1
    num = abs(num)
    exp = max(num.bit_length() - 1 - k, emin)
    quantum = exp - digits + 1
    shift = -k - quantum
    if shift >= 0:
        whole, rest, half = num << shift, 0, 1
    else:
        whole = num >> -shift
        rest = num & ((1 << -shift) - 1)
        half = 1 << (-shift - 1)
    whole += _round_up(whole, rest, half, sign, mode)
    return _finish(ty, sign, whole, quantum, mode)


def _round_fraction(ty, value, mode):
    if value == 0:
        return 0.0
    digits, emin = _FLOAT_SHAPE[ty]
    sign = -1 if value < 0 else 1
    value = abs(value)
    exp = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exp > value:
        exp -= 1
    exp = max(exp, emin)  # subnormals keep the minimum exponent's quantum
    quantum = exp - digits + 1
    scaled = value / Fraction(2) ** quantum
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    whole += _round_up(whole, rest, Fraction(1, 2), sign, mode)
    return _finish(ty, sign, whole, quantum, mode)


def _round_up(whole, rest, half, sign, mode):
    """1 when the magnitude `whole` + `rest` (a remainder below 2 * `half`) rounds up."""
    if not rest:
        return 0
    if mode == "rn":
        return int(rest > half or (rest == half and whole % 2 == 1))
    return int(mode == "ru" and sign > 0 or mode == "rd" and sign < 0)


def _finish(ty, sign, whole, quantum, mode):
    """sign * whole * 2^quantum; beyond the largest finite value, infinity or (rounding
    toward zero, or away from the overflow's direction) the largest finite value."""
    digits, _ = _FLOAT_SHAPE[ty]
    emax = {"f16": 15, "bf16": 127, "f32": 127, "f64": 1023}[ty]
    if whole.bit_length() + quantum > emax + 1:
        if mode == "rz" or (mode == "ru" and sign < 0) or (mode == "rd" and sign > 0):
            return sign * math.ldexp((1 << digits) - 1, emax - digits + 1)
        return sign * math.inf
    return math.copysign(math.ldexp(whole, quantum), sign)


def ieee(ty, op, x, y, mode="rn"):
    """x OP y (`add`, `mul`, `div`) as IEEE 754 `ty` arithmetic with PTX rounding `mode`:
    infinities, NaN and signed zeros included; finite results rounded exactly once."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if op == "div":
        if y == 0:
            return math.nan if x == 0 else math.copysign(math.inf, x) * math.copysign(1, y)
        if math.isinf(x) and math.isinf(y):
            return math.nan
        if math.isinf(y):
            return math.copysign(0.0, x) * math.copysign(1, y)
    if math.isinf(x) or math.isinf(y):
        return {"add": lambda: x + y, "mul": lambda: x * y, "div": lambda: x / y}[op]()
    exact = {"add": lambda: Fraction(x) + Fraction(y), "mul": lambda: Fraction(x) * Fraction(y),
             "div": lambda: Fraction(x) / Fraction(y)}[op]()
    if exact == 0:
        if op == "add":
            both_negative = math.copysign(1, x) < 0 and math.copysign(1, y) < 0
            negative = both_negative if x == 0 and y == 0 else mode == "rd"
        else:
            negative = (math.copysign(1, x) < 0) != (math.copysign(1, y) < 0)
        return -0.0 if negative else 0.0
    return round_to(ty, exact, mode)


def fma(ty, a, b, c):
    """a*b+c rounded once to `ty`."""
    na, da = float(a).as_integer_ratio()
    nb, db = float(b).as_integer_ratio()
    nc, dc = float(c).as_integer_ratio()
    kab = (da * db).bit_length() - 1
    kc = dc.bit_length() - 1
    k = max(kab, kc)
    return _round_dyadic(ty, na * nb * (1 << (k - kab)) + nc * (1 << (k - kc)), k, "rn")


def f32(x):
    return round_to("f32", x)


def pack(ty, values):
    """Little-endian bytes of `values` (None packs as zero)."""
    values = [0 if v is None else v for v in values]
    if ty == "bf16":
        return b"".join(struct.pack("<H", _bf16_bits(v)) for v in values)
    if is_float(ty):
        values = [round_to(ty, v) if not (isinstance(v, float) and math.isnan(v)) else v
                  for v in values]
    else:
        bits = 8 * WIDTHS[ty]
        signed = ty.startswith("i")
        values = [_wrap(int(v), bits, signed) for v in values]
    return struct.pack("<%d%s" % (len(values), FORMATS[ty]), *values)


def _wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _bf16_bits(v):
    if isinstance(v, float) and math.isnan(v):
        return 0x7FC0
    return struct.unpack("<I", struct.pack("<f", round_to("bf16", v)))[0] >> 16


def decode(ty, data):
    """The values of a buffer of `ty` elements."""
    count = len(data) // WIDTHS[ty]
    if ty == "bf16":
        return [struct.unpack("<f", struct.pack("<I", b << 16))[0]
                for b in struct.unpack("<%dH" % count, data)]
    return list(struct.unpack("<%d%s" % (count, FORMATS[ty]), data))


def ordered_bits(ty, data, i):
    """Element i's bits as an integer whose distance to another's is their ULP distance."""
    width = WIDTHS[ty]
    fmt = {1: "<b", 2: "<h", 4: "<i", 8: "<q"}[width]
    bits = struct.unpack_from(fmt, data, i * width)[0]
    return bits if bits >= 0 else -(bits & ((1 << (8 * width - 1)) - 1))


def elements_differ(ty, ref, got, check, skip):
    """Element indices where `got` disagrees with `ref` (bytes of `ty` elements) per `check`:
    "exact" (same bytes), "bits" (same bytes, but any NaN matches any NaN: for host
    expectations, which do not model NaN payloads), ("ulp", _, N) or ("rel", _, TOL) (|r-g|
    within TOL relative or absolute; NaN matches NaN). Indices in `skip` are not compared."""
    width = WIDTHS[ty]
    if len(ref) != len(got):
        return ["length %d vs %d" % (len(got), len(ref))]
    count = len(ref) // width
    bad = []
    if check == "bits":
        rv, gv = decode(ty, ref), decode(ty, got)
        for i in range(count):
            both_nan = is_float(ty) and math.isnan(rv[i]) and math.isnan(gv[i])
            same = ref[i * width:(i + 1) * width] == got[i * width:(i + 1) * width]
            if i not in skip and not same and not both_nan:
                bad.append(i)
        return bad
    if check == "exact":
        for i in range(count):
            if i not in skip and ref[i * width:(i + 1) * width] != got[i * width:(i + 1) * width]:
                bad.append(i)
        return bad
    kind, _, tol = check
    rv, gv = decode(ty, ref), decode(ty, got)
    for i in range(count):
        if i in skip:
            continue
        r, g = rv[i], gv[i]
        if math.isnan(r) or math.isnan(g):
            if not (math.isnan(r) and math.isnan(g)):
                bad.append(i)
        elif kind == "ulp":
            if abs(ordered_bits(ty, ref, i) - ordered_bits(ty, got, i)) > tol:
                bad.append(i)
        elif math.isinf(r) or math.isinf(g):
            if r != g:
                bad.append(i)
        elif abs(r - g) > tol * max(abs(r), 1e-30) and abs(r - g) > tol:
            bad.append(i)
    return bad
