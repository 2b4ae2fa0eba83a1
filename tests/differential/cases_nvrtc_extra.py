"""NVRTC corpus cases for the newer corpus files: structs passed by value, mixed scalar
widths, half and bfloat16 arithmetic, redux.sync, cp.async, read-only loads, device printf and
WMMA tensor cores, with host expectations."""

import struct

from case_model import EXACT, Rand, Struct, case, rel
from cases_nvrtc_core import NVRTC, warps, wrap
from elements import f32, fma, round_to

NVRTC90 = "corpus/nvrtc/compute_90"
PARAMS_P = (1.5, 3, 2.0)
PARAMS_Q = (0.25, -1, -3.0)
ALIGNED = (1.0, 2.0, 3.0, 4.5, 9)
TABLE = (11, -22, 33, -44, 55, -66, 77, -88)


def two_structs(ins):
    p, k, q, a = ins[0], ins[1], ins[2], ins[3]
    total = f32(p[0] + q[0])
    for v in a[:4]:
        total = f32(total + v)
    return {4: [total, float(p[1] + q[1] + k + a[4]), f32(p[2] * q[2])]}


def warp_redux(ins):
    out = []
    for warp in warps(ins[0]):
        xor = 0
        for v in warp:
            xor ^= v & 0xFFFFFFFF
        row = [wrap(sum(warp)), min(warp), max(warp), wrap(xor)]
        out += row * 32
    return {1: out}


def async_copy(ins):
    vecs = [ins[0][4 * i:4 * i + 4] for i in range(256)]
    out = []
    for b in range(2):
        for t in range(128):
            out += vecs[b * 128 + 127 - t][::-1]
    return {1: out}


def tf32(x):
    """cvt.rna.tf32.f32: 10 explicit mantissa bits, ties away from zero."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x1000) & 0xFFFFE000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def wmma_f16_f32(ins):
    a, b = ins[0], ins[1]  # a row-major, b column-major, 16x16x16
    return {2: [sum(a[i * 16 + k] * b[j * 16 + k] for k in range(16))
                for i in range(16) for j in range(16)]}


def wmma_tf32(ins):
    a, b = [tf32(v) for v in ins[0]], [tf32(v) for v in ins[1]]  # both row-major, ld 16
    return {2: [sum(a[i * 16 + k] * b[k * 16 + j] for k in range(16))
                for i in range(16) for j in range(16)]}


CASES = [
    # Structs and scalars of every width passed by value.
    case("params_by_value", f"{NVRTC}/structs.ptx", "params_by_value", "1", "128",
         [Struct("<fid", 1.5, 100, 0.25), Rand("f32", 128, -4, 4, 201), "f64[128]=zeros"], {2: EXACT},
         expect=lambda ins: {2: [f32(ins[0][0] * x) + ins[0][2] if i < 100 else 0.0
                                 for i, x in enumerate(ins[1])]}),
    case("vec3_by_value", f"{NVRTC}/structs.ptx", "vec3_by_value", "1", "32",
         [Struct("<fffiQ", 0.5, -1.25, 3.0, 7, 2**40), "f32[96]=zeros", "u64[32]=zeros"],
         {1: EXACT, 2: EXACT},
         expect=lambda ins: {1: [f32(c * i) for i in range(32) for c in ins[0][:3]],
                             2: [2**40 + 7] * 32}),
    case("two_structs_mangled", f"{NVRTC}/structs.ptx", "_Z11two_structs6ParamsiS_9Aligned16Pf", "1", "1",
         [Struct("<fid", *PARAMS_P), "i32:5", Struct("<fid", *PARAMS_Q), Struct("<4fi12x", *ALIGNED),
          "f32[3]=zeros"], {4: EXACT}, expect=two_structs),
    case("mixed_scalars", f"{NVRTC}/structs.ptx", "mixed_scalars", "1", "1",
         ["i8:-5", "i16:-300", "i32:70000", "i64:-1099511627776", "f32:1.25", "f64:-2.5", "u8:200",
          "f64[7]=zeros"], {7: EXACT},
         expect=lambda ins: {7: [float(v) for v in ins[:7]]}),
    case("table_lookup", f"{NVRTC}/structs.ptx", "table_lookup", "1", "128",
         [Struct("<8i", *TABLE), Rand("i32", 100, -50, 50, 202), "i32[100]=zeros", "i32:100"], {2: EXACT},
         expect=lambda ins: {2: [TABLE[v & 7] for v in ins[1]]}),
    # Half and bfloat16.
    case("half_axpy", f"{NVRTC}/half.ptx", "half_axpy", "1", "128",
         ["f16:0.75", Rand("f16", 100, -4, 4, 203), Rand("f16", 100, -4, 4, 204), "i32:100"], {2: EXACT},
         expect=lambda ins: {2: [fma("f16", ins[0], x, y) for x, y in zip(ins[1], ins[2])]}),
    case("half2_mul", f"{NVRTC}/half.ptx", "half2_mul", "1", "64",
         [Rand("f16", 128, -8, 8, 205), Rand("f16", 128, -8, 8, 206), "f16[128]=zeros", "i32:64"], {2: EXACT},
         expect=lambda ins: {2: [round_to("f16", x * y) for x, y in zip(ins[0], ins[1])]}),
    case("half_convert", f"{NVRTC}/half.ptx", "half_convert", "1", "128",
         [Rand("f32", 100, -1000, 1000, 207), "f16[100]=zeros", "f32[100]=zeros", "i32:100"],
         {1: EXACT, 2: EXACT},
         expect=lambda ins: {1: [round_to("f16", v) for v in ins[0]],
                             2: [round_to("f16", round_to("f16", v) + 1.0) for v in ins[0]]}),
    case("bf16_axpy", f"{NVRTC}/half.ptx", "bf16_axpy", "1", "128",
         ["f32:-1.5", Rand("bf16", 100, -4, 4, 208), Rand("bf16", 100, -4, 4, 209), "i32:100"], {2: EXACT},
         expect=lambda ins: {2: [round_to("bf16", fma("f32", ins[0], x, y)) for x, y in zip(ins[1], ins[2])]}),
    case("bf16_native", f"{NVRTC}/half.ptx", "bf16_native", "1", "128",
         [Rand("bf16", 100, -4, 4, 210), "bf16[100]=zeros", "i32:100"], {1: EXACT},
         expect=lambda ins: {1: [round_to("bf16", round_to("bf16", x * x) + 0.5) for x in ins[0]]}),
    # sm_80 instructions: read-only and streaming loads, redux.sync, cp.async.
    case("ldg_and_clock", f"{NVRTC}/advanced.ptx", "ldg_and_clock", "1", "32",
         [Rand("f32", 64, -1, 1, 211), "f32[32]=zeros", "i64[32]=zeros", "u64[32]=zeros"], {1: EXACT},
         expect=lambda ins: {1: [f32(ins[0][t] + ins[0][t + 32]) for t in range(32)]}),
    case("warp_redux", f"{NVRTC}/advanced.ptx", "warp_redux", "1", "64",
         [Rand("i32", 64, -2**31, 2**31 - 1, 212), "i32[256]=zeros"], {1: EXACT}, expect=warp_redux),
    case("async_copy", f"{NVRTC}/advanced.ptx", "async_copy", "2", "128",
         [Rand("f32", 1024, -1, 1, 213), "f32[1024]=zeros"], {1: EXACT}, expect=async_copy),
    case("checked_divide", f"{NVRTC}/advanced.ptx", "checked_divide", "1", "256",
         [Rand("i32", 200, 0, 10**6, 214), Rand("i32", 200, 1, 50, 215), "i32[200]=zeros", "i32:200"],
         {2: EXACT}, expect=lambda ins: {2: [a // b for a, b in zip(ins[0], ins[1])]}),
    # Producer/consumer between blocks through a system fence and a volatile flag.
    case("flag_handoff", f"{NVRTC}/advanced.ptx", "flag_handoff", "4", "32", ["i32[1]=zeros", "i32[4]=zeros"],
         {0: EXACT, 1: EXACT}, expect=lambda ins: {0: [1], 1: [42, 43, 44, 45]}),
    # sm_90 thread-block clusters (compile-time cluster of 2) and distributed shared memory.
    case("cluster_ids", f"{NVRTC90}/hopper.ptx", "cluster_ids", "4", "32", ["u32[4]=zeros"], {0: EXACT},
         expect=lambda ins: {0: [1 << 16] * 4}),
    case("cluster_exchange", f"{NVRTC90}/hopper.ptx", "cluster_exchange", "4", "64",
         [Rand("i32", 256, -10**6, 10**6, 220), "i32[256]=zeros"], {1: EXACT},
         expect=lambda ins: {1: [ins[0][(b ^ 1) * 64 + t] for b in range(4) for t in range(64)]}),
    # Device printf: lines in any order.
    case("printf_hello", f"{NVRTC}/printf.ptx", "hello", "2", "4", ["i32:42", "f32:1.5", "f64:2.25"], {},
         stdout=["hello from block %d thread %d tag 42" % (b, t) for b in range(2) for t in range(4)]
         + ["f=1.500000 d=2.250 s=str c=x ll=-1"] * 2),
    # Tensor cores (WMMA): accumulation order inside the MMA is unspecified.
    case("wmma_f16_f32", f"{NVRTC}/tensor_cores.ptx", "wmma_f16_f32", "1", "32",
         [Rand("f16", 256, -1, 1, 216), Rand("f16", 256, -1, 1, 217), "f32[256]=zeros"],
         {2: rel("f32", 1e-5)}, expect=lambda ins: {2: (wmma_f16_f32(ins)[2], rel("f32", 1e-5))}),
    case("wmma_tf32", f"{NVRTC}/tensor_cores.ptx", "wmma_tf32", "1", "32",
         [Rand("f32", 256, -1, 1, 218), Rand("f32", 256, -1, 1, 219), "f32[256]=zeros"],
         {2: rel("f32", 1e-5)}, expect=lambda ins: {2: (wmma_tf32(ins)[2], rel("f32", 1e-5))}),
]

