"""Probe kernels for synchronisation and less common instructions (kernels/probes.cu): barriers
after some threads exited, named barriers with bar.arrive/bar.sync and a thread count, cp.async
with zero-fill, lop3/bmsk/szext/shf from inline assembly, device printf conversions,
f16x2/f16 atomics, 16-bit CAS next to live data and scoped 64-bit atomics; each
checked against the PTX ISA's (or C's) definition computed on the host."""

from case_model import EXACT, Rand, Values, case
from cases_probes import PROBES

M32 = 0xFFFFFFFF


def lop3(a, b, c, lut):
    return sum(((lut >> ((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1))) & 1) << i for i in range(32))


def bmsk(pos, width, clamp):
    pos, width = (min(pos, 32), min(width, 32)) if clamp else (pos & 31, width & 31)
    return (((1 << width) - 1) << pos) & M32


def szext(a, width, clamp, signed):
    n = min(width, 32) if clamp else width & 31
    if n == 0:
        return 0
    low = a & ((1 << n) - 1)
    if signed and low >> (n - 1):
        low -= 1 << n
    return low & M32


def logic_ops(ins):
    out = []
    for x, y in zip(ins[0], ins[1]):
        z = (x * 2654435761) & M32
        out += [lop3(x, y, z, 0x96), lop3(x, y, z, 0xE8), lop3(x, y, z, 0x1B),
                bmsk(x % 40, y % 40, True), bmsk(x % 40, y % 40, False),
                szext(x, y % 40, True, True), szext(x, y % 40, False, False),
                ((y << 32 | x) >> (z & 31)) & M32]
    return {2: out}


def zfill(ins):
    out = []
    for t in range(32):
        vec = ins[0][4 * t:4 * t + 4]
        keep = t % 5
        out += vec[:keep] + [0] * (4 - keep)
    return {1: out}


def printf_lines(i, u, ll, d, f, threads):
    """What printf_formats prints per thread, formatted as C does (Python's % agrees for these
    conversions once the `ll` length modifiers are dropped)."""
    lines = []
    for t in range(threads):
        lines += ["d=%d i=%+i u=%u x=%x X=%#X o=%o c=%c s=%s pct=%%" % (i, i, u, u, u, u, chr(65 + t), "str"),
                  "w=[%6d] l=[%-6d] z=[%06d] ll=%d llu=%d llx=%x" % (i, i, i, ll, ll % 2**64, ll % 2**64),
                  "f=%f e=%e E=%E g=%g G=%G p3=%.3f w10=%10.4f sci=%.2e neg=%+.1f" % ((d,) * 8 + (-d,)),
                  # 0.0/0.0 is 0xfff8000000000000 on a GPU: C prints the sign of a NaN.
                  "float=%f tiny=%g big=%g inf=%f nan=-nan t=%u" % (f, f * 1e-30, f * 1e300, float("inf"), t)]
    return lines


CASES = [
    case("probe_early_exit_barrier", PROBES, "early_exit_barrier", "1", "128",
         [Rand("i32", 128, -1000, 1000, 712), "i32[128]=zeros", "i32:40"], {1: EXACT},
         expect=lambda ins: {1: [ins[0][(t + 1) % 40] for t in range(40)] + [0] * 88}),
    case("probe_named_barrier", PROBES, "named_barrier", "1", "96",
         [Rand("i32", 32, -1000, 1000, 713), "i32[64]=zeros"], {1: EXACT},
         expect=lambda ins: {1: [2 * ins[0][31 - l] for l in range(32)] + list(range(32))}),
    case("probe_cp_async_zfill", PROBES, "cp_async_zfill", "1", "32",
         [Rand("i32", 128, -10**6, 10**6, 714), "i32[128]=zeros"], {1: EXACT}, expect=zfill),
    case("probe_printf_formats", PROBES, "printf_formats", "1", "3",
         ["i32:-42", "u32:3735928559", "i64:-1234567890123", "f64:12345.6789", "f32:1.5"], {},
         stdout=printf_lines(-42, 3735928559, -1234567890123, 12345.6789, 1.5, 3)),
    case("probe_atomics_narrow", PROBES, "atomics_narrow", "2", "128",
         ["f16[2]=zeros", "f16[1]=zeros", Values("u16", [0, 0x1234]), "u64[4]=zeros"],
         {0: EXACT, 1: EXACT, 2: EXACT, 3: EXACT}, skip={3: [2]},
         expect=lambda ins: {0: [256.0, 512.0], 1: [256.0], 2: [7, 0x1234], 3: [768 << 40, 2**64 - 1, None, 0]}),
    case("probe_logic_ops", PROBES, "logic_ops", "1", "64",
         [Rand("u32", 64, 0, 2**32 - 1, 715), Rand("u32", 64, 0, 2**32 - 1, 716), "u32[512]=zeros"], {2: EXACT},
         expect=logic_ops),
]
