"""Probe kernels (kernels/probes.cu, NVRTC 13.0 for compute_80): exact instruction semantics an
emulator easily gets wrong, each checked against the PTX ISA's definition computed on the host:
bfe/bfi/prmt/bfind with out-of-range positions and lengths, rounding to integral values at
halves and signed zeros, saturating double-to-integer and double-to-float conversions, sub-word
sign extension, shuffles under disjoint partial masks, shared-memory float and 16-bit atomics,
24-bit multiplies."""

import math
import struct
from fractions import Fraction

from case_model import EXACT, Rand, Values, case
from cases_nvrtc_core import warps, wrap
from elements import round_to

PROBES = "tests/differential/kernels/probes.compute_80.ptx"
NAN, INF = math.nan, math.inf


def bit(v, i):
    return (v >> i) & 1


def bfe(a, pos, length, signed):
    pos, length = pos & 0xFF, length & 0xFF
    sbit = bit(a, min(pos + length - 1, 31)) if signed and length else 0
    return sum((bit(a, pos + i) if i < length and pos + i <= 31 else sbit) << i for i in range(32))


def bfi(a, base, pos, length):
    pos, length = pos & 0xFF, length & 0xFF
    for i in range(length):
        if pos + i <= 31:
            base = (base & ~(1 << (pos + i))) | (bit(a, i) << (pos + i))
    return base & 0xFFFFFFFF


def prmt(a, b, selector):
    pool = (b << 32 | a).to_bytes(8, "little")
    out = 0
    for n in range(4):
        nibble = (selector >> (4 * n)) & 0xF
        byte = pool[nibble & 7]
        if nibble & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * n)
    return out


def bitfield(ins):
    out = []
    for a, p, l in zip(ins[0], ins[1], ins[2]):
        shifted = a >> (p & 31)
        out += [bfe(a, p, l, False), bfe(a, p, l, True) & 0xFFFFFFFF, bfi(a, 0x5A5A5A5A, p, l),
                prmt(a, ~a & 0xFFFFFFFF, (p | l << 8) & 0xFFFF),
                shifted.bit_length() - 1 if shifted else 0xFFFFFFFF]
    return {3: out}


def integral(x, how):
    """floor/ceil/trunc/rint/round of a float: NaN and infinities pass, a zero result keeps
    the sign of x."""
    if math.isnan(x) or math.isinf(x):
        return x
    q = Fraction(x)
    if how == "floor":
        r = math.floor(q)
    elif how == "ceil":
        r = math.ceil(q)
    elif how == "trunc":
        r = math.trunc(q)
    elif how == "rint":
        r = round(q)  # ties to even
    else:
        r = math.floor(abs(q) + Fraction(1, 2)) * (1 if x >= 0 else -1)
    return math.copysign(0.0, x) if r == 0 else float(r)


HOWS = ("floor", "ceil", "trunc", "rint", "round")


def cvt_int(v, lo, hi, rounding):
    """cvt from .f64 to an integer type (PTX ISA 9.0): saturating; NaN gives 1 << (bits - 1),
    which is MININT for signed types (a source other than .f64 with a destination narrower than
    64 bits would give 0)."""
    if math.isnan(v):
        return lo if lo else (hi + 1) // 2
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(rounding(Fraction(v)), lo), hi)


def convert_f64(ins):
    x, n = ins[0], ins[1]
    return {2: [cvt_int(v, -2**63, 2**63 - 1, math.trunc) for v in x],
            3: [cvt_int(v, 0, 2**64 - 1, math.trunc) for v in x],
            4: [round_to("f32", v) if not math.isnan(v) else NAN for v in x],
            5: [w for k in n for w in (round_to("f64", k), round_to("f32", k))],
            6: [cvt_int(v, -2**31, 2**31 - 1, round) for v in x]}


def sext24(v):
    return ((v & 0xFFFFFF) ^ 0x800000) - 0x800000


def mul24(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        p = sext24(x) * sext24(y)
        out += [wrap(p), wrap((x & 0xFFFFFF) * (y & 0xFFFFFF)), wrap(p >> 16), wrap(p + wrap(x ^ y))]
    return {2: out}


def disjoint_masks(ins):
    out = []
    for w in warps(ins[0]):
        out += [w[l ^ 2] if l & 1 else (w[l + 2] if l + 2 < 32 else w[l]) for l in range(32)]
    return {1: out}


def shared_atomics(ins):
    blocks = [ins[0][b * 64:(b + 1) * 64] for b in range(4)]
    key = [max(wrap(struct.unpack("<I", struct.pack("<f", v))[0] ^ 0x7FFFFFFF) for v in blk) for blk in blocks]
    return {1: [sum(blk) for blk in blocks], 2: key, 3: [b + 7 for b in range(4)]}


BITS = [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1, 0xDEADBEEF, 0x00F0F000, 0x12345678]
POS = [0, 31, 32, 40, 255, 256 + 4, 16, 3]
LEN = [0, 1, 32, 33, 255, 8, 16 + 256, 29]
F32_IN = [NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 8388609.0,
          -8388609.5, 1e-45, -1e-45, 3e38, -0.7, 0.7, 16777215.0, 4194304.5, -4194304.5, 1.0000001,
          -1.0000001, 123.25, -123.75, 2.0, -2.0, 1e10, 0.999999, -0.999999]
F64_IN = [NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994,
          -0.49999999999999994, 4503599627370497.0, -4503599627370495.5, 5e-324, -5e-324, 1.7e308, -0.7,
          0.7, 2.0**53, 2251799813685248.5, -2251799813685248.5, 1.0000000000000002, -1.0000000000000002,
          123.25, -123.75, 2.0, -2.0, 1e300, 0.9999999999999999, -0.9999999999999999]
CONVERT_IN = [NAN, INF, -INF, 1e300, -1e300, 9.3e18, -9.3e18, 1.8e19, 2e19, -1.0, -0.5, 0.5, 2.5, -2.5, 3.5,
              1e-310, -1e-320, 3.4028235677973366e38, 3.4028234663852886e38, 7.006492321624085e-46,
              2147483647.5, -2147483648.5, 2147483646.5, 123456789.123, -0.0, 9.2233720368547758e18,
              -9.2233720368547758e18, 1.8446744073709552e19, 3.4028235e38 * 1.0000001, 1e-46, -3e38, 0.1]
I64_IN = [2**53 + 1, 2**63 - 1, -2**63, 2**24 + 1, 123, -(2**53 + 3), 2**62 + 2**9 + 1, -(2**25 + 3),
          0, -1, 2**53, 2**54 + 2, 2**54 + 6, 16777217, -16777219, 2**40 + 1] * 2

CASES = [
    case("probe_bitfield", PROBES, "bitfield_asm", "1", "8",
         [Values("u32", BITS), Values("u32", POS), Values("u32", LEN), "u32[40]=zeros"], {3: EXACT},
         expect=bitfield),
    case("probe_bitfield_random", PROBES, "bitfield_asm", "1", "64",
         [Rand("u32", 64, 0, 2**32 - 1, 701), Rand("u32", 64, 0, 40, 702), Rand("u32", 64, 0, 40, 703),
          "u32[320]=zeros"], {3: EXACT}, expect=bitfield),
    case("probe_round_integral", PROBES, "round_integral", "1", "32",
         [Values("f32", F32_IN), Values("f64", F64_IN), "f32[160]=zeros", "f64[160]=zeros"], {2: EXACT, 3: EXACT},
         expect=lambda ins: {2: [integral(v, h) for v in ins[0] for h in HOWS],
                             3: [integral(v, h) for v in ins[1] for h in HOWS]}),
    case("probe_convert_f64", PROBES, "convert_f64", "1", "32",
         [Values("f64", CONVERT_IN), Values("i64", I64_IN), "i64[32]=zeros", "u64[32]=zeros", "f32[32]=zeros",
          "f64[64]=zeros", "i32[32]=zeros"], {2: EXACT, 3: EXACT, 4: EXACT, 5: EXACT, 6: EXACT},
         expect=convert_f64),
    case("probe_subword", PROBES, "subword", "2", "64",
         [Rand("i8", 128, -128, 127, 704), Rand("i16", 128, -2**15, 2**15 - 1, 705),
          Rand("u16", 128, 0, 2**16 - 1, 706), "u8[128]=zeros", "i16[128]=zeros", "i32[256]=zeros"],
         {3: EXACT, 4: EXACT, 5: EXACT},
         expect=lambda ins: {3: [(a + b) & 0xFF for a, b in zip(ins[0], ins[1])],
                             4: [wrap(a * b, 16) for a, b in zip(ins[0], ins[1])],
                             5: [w for a, c in zip(ins[0], ins[2]) for w in (a * c, wrap(c, 16) >> 3)]}),
    case("probe_disjoint_masks", PROBES, "disjoint_masks", "1", "64",
         [Rand("i32", 64, -1000, 1000, 707), "i32[64]=zeros"], {1: EXACT}, expect=disjoint_masks),
    case("probe_shared_atomics", PROBES, "shared_atomics", "4", "64",
         [Values("f32", [v / 4 for v in Rand("i32", 256, -32, 32, 708).values()]), "f32[4]=zeros",
          "i32[4]=zeros", "u16[4]=zeros"], {1: EXACT, 2: EXACT, 3: EXACT}, expect=shared_atomics),
    case("probe_mul24", PROBES, "mul24", "1", "64",
         [Values("i32", [2**31 - 1, -2**31, 0x00800000, 0x00FFFFFF, -1, 0x7FFFFF, -0x800000, 12345]
                 + Rand("i32", 56, -2**31, 2**31 - 1, 709).values()),
          Values("i32", [2**31 - 1, -2**31, 0x00800000, 0x00FFFFFF, -1, -0x800000, 0x7FFFFF, -54321]
                 + Rand("i32", 56, -2**31, 2**31 - 1, 710).values()), "i32[256]=zeros"], {2: EXACT},
         expect=mul24),
]
