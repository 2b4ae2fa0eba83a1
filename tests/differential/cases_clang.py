"""clang 22 CUDA kernels (corpus/clang: LLVM's NVPTX back end without the CUDA SDK), each at
-O2, -O0 (local-memory traffic, many `.param` moves), sm_90 -O3 and -O2 with line info, with
host expectations."""

import math

from case_model import EXACT, Rand, Struct, case, rel
from cases_nvrtc_core import add32, tree_reduce, warps
from elements import f32, fma, round_to

CLANG = "corpus/clang"
BUILDS = {"O2": "kernels.sm_80.O2.ptx", "O0": "kernels.sm_80.O0.ptx", "sm90_O3": "kernels.sm_90.O3.ptx",
          "lineinfo": "kernels.sm_80.lineinfo.ptx"}
COEFFS = (1.0, 2.0, 4.0, 8.0)
SCALE = (1.5, 3, -0.25)


def collatz_steps(n):
    steps = 0
    while n > 1:
        n = 3 * n + 1 if n & 1 else n // 2
        steps += 1
    return steps


def apply_scale(ins, integer):
    mul, shift, bias = ins[0]
    out = []
    for i, v in enumerate(ins[1][:ins[3]]):
        product = f32((f32(v) if integer else v) * mul)
        out.append(product + bias + f32(COEFFS[i & 3] * f32(shift)))
    return {2: out + [0.0] * (len(ins[1]) - ins[3])}


def vote_and_xor(ins):
    v = ins[0]
    return {1: [sum(1 << lane for lane, x in enumerate(w) if x > 0) for w in warps(v)],
            2: [add32(x, v[i ^ 1]) for i, x in enumerate(v)]}


def kernels(tag, path):
    return [
        case(f"clang_saxpy@{tag}", path, "saxpy", "4", "128",
             ["f32:-0.5", Rand("f32", 500, -8, 8, 601), Rand("f32", 500, -8, 8, 602), "i32:500"], {2: EXACT},
             expect=lambda ins: {2: [fma("f32", ins[0], x, y) for x, y in zip(ins[1], ins[2])]}),
        case(f"clang_block_reduce@{tag}", path, "block_reduce", "1", "128",
             [Rand("f32", 100, -1, 1, 603), "f32[1]=zeros", "i32:100"], {1: EXACT},
             expect=lambda ins: {1: [tree_reduce(ins[0] + [0.0] * 28, add32)]}),
        case(f"clang_warp_sum@{tag}", path, "warp_sum", "2", "64",
             [Rand("i32", 128, -10**6, 10**6, 604), "i32[1]=zeros"], {1: EXACT},
             expect=lambda ins: {1: [sum(ins[0])]}),
        case(f"clang_vote_and_xor@{tag}", path, "vote_and_xor", "1", "64",
             [Rand("f32", 64, -1, 1, 605), "u32[2]=zeros", "f32[64]=zeros"], {1: EXACT, 2: EXACT},
             expect=vote_and_xor),
        case(f"clang_collatz@{tag}", path, "collatz", "1", "256", ["i32[200]=zeros", "i32:200"], {0: EXACT},
             expect=lambda ins: {0: [collatz_steps(i + 1) for i in range(200)]}),
        case(f"clang_apply_scale_float@{tag}", path, "_Z11apply_scaleIfEv5ScalePKT_Pdi", "1", "64",
             [Struct("<fid", *SCALE), Rand("f32", 64, -4, 4, 606), "f64[64]=zeros", "i32:60"], {2: EXACT},
             expect=lambda ins: apply_scale(ins, False)),
        case(f"clang_apply_scale_int@{tag}", path, "_Z11apply_scaleIiEv5ScalePKT_Pdi", "1", "64",
             [Struct("<fid", *SCALE), Rand("i32", 64, -2**30, 2**30, 607), "f64[64]=zeros", "i32:64"], {2: EXACT},
             expect=lambda ins: apply_scale(ins, True)),
        case(f"clang_rotate_dyn_smem@{tag}", path, "rotate_dyn_smem", "2", "64",
             [Rand("i32", 128, -1000, 1000, 608), "i32[128]=zeros"], {1: EXACT}, shared=256,
             expect=lambda ins: {1: [ins[0][b + (t + 1) % 64] for b in (0, 64) for t in range(64)]}),
        case(f"clang_cas_spin_add@{tag}", path, "cas_spin_add", "2", "64", ["i32[1]=fill:5", "i32:3"], {0: EXACT},
             expect=lambda ins: {0: [5 + 3 * 128]}),
        case(f"clang_fast_math@{tag}", path, "fast_math", "1", "64",
             [Rand("f32", 64, 0, 10, 609), "f32[128]=zeros"], {1: rel("f32", 2e-6)},
             expect=lambda ins: {1: ([v for x in ins[0] for v in (round_to("f32", math.sqrt(x)), 2.0 ** x)],
                                     rel("f32", 2e-6))}),
        case(f"clang_say_hello@{tag}", path, "say_hello", "2", "3", ["i32:7"], {},
             stdout=["hello from %d/%d tag 7" % (b, t) for b in range(2) for t in range(3)]),
    ]


CASES = [c for tag, name in BUILDS.items() for c in kernels(tag, f"{CLANG}/{name}")]
