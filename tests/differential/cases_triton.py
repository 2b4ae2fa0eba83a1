"""Triton 3.9 kernels compiled for sm_80 (corpus/triton): element-wise add, row softmax,
layer norm and an fp16 `tl.dot` matmul (mma.sync + ldmatrix), with host expectations.

Triton entries take two trailing `.u64` scratch pointers (global and profile scratch) after
the kernel's own parameters; these kernels never load them, so they get `u64:0`. Every entry
has `.reqntid 128` (num_warps=4). Their shared memory is dynamic (`.extern .shared global_smem`):
the launch gives the size Triton's compiled metadata names (`metadata.shared`: 16 bytes for
softmax and layer norm, 8192 for matmul; recompiling scripts/corpus/triton_corpus.py gives the
same PTX and these sizes)."""

import math

from case_model import EXACT, Rand, case, rel, ulp
from elements import f32, round_to

TRITON = "corpus/triton"
SCRATCH = ["u64:0", "u64:0"]
ROWS, COLS = 8, 1000
LN_ROWS, LN_COLS = 4, 500
M, N, K = 128, 64, 80


def softmax(ins):
    out = []
    for r in range(ROWS):
        row = ins[1][r * COLS:(r + 1) * COLS]
        top = max(row)
        num = [math.exp(v - top) for v in row]
        den = sum(num)
        out += [v / den for v in num]
    return {0: (out, rel("f32", 1e-5))}


def layer_norm(ins):
    x, w, b = ins[0], ins[2], ins[3]
    y, means, rstds = [], [], []
    for r in range(LN_ROWS):
        row = x[r * LN_COLS:(r + 1) * LN_COLS]
        mean = sum(row) / LN_COLS
        var = sum((v - mean) ** 2 for v in row) / LN_COLS
        rstd = 1 / math.sqrt(var + 1e-5)
        y += [(v - mean) * rstd * w[c] + b[c] for c, v in enumerate(row)]
        means.append(mean)
        rstds.append(rstd)
    return {1: (y, rel("f32", 1e-4)), 4: (means, rel("f32", 1e-5)), 5: (rstds, rel("f32", 1e-5))}


def matmul(ins):
    a, b = ins[0], ins[1]
    out = [round_to("f16", sum(a[i * K + k] * b[k * N + j] for k in range(K)))
           for i in range(M) for j in range(N)]
    return {2: (out, ulp("f16", 1))}


CASES = [
    case("triton_add", f"{TRITON}/add.sm_80.ptx", "add_kernel", "3", "128",
         [Rand("f32", 3000, -100, 100, 301), Rand("f32", 3000, -100, 100, 302), "f32[3000]=zeros",
          "i32:3000"] + SCRATCH, {2: EXACT},
         expect=lambda ins: {2: [f32(x + y) for x, y in zip(ins[0], ins[1])]}),
    case("triton_softmax", f"{TRITON}/softmax.sm_80.ptx", "softmax_kernel", str(ROWS), "128",
         [f"f32[{ROWS * COLS}]=zeros", Rand("f32", ROWS * COLS, -5, 5, 303), f"i32:{COLS}", f"i32:{COLS}",
          f"i32:{COLS}"] + SCRATCH, {0: rel("f32", 2e-6)}, shared=16, expect=softmax),
    case("triton_layer_norm", f"{TRITON}/layer_norm.sm_80.ptx", "layer_norm_kernel", str(LN_ROWS), "128",
         [Rand("f32", LN_ROWS * LN_COLS, -3, 3, 304), f"f32[{LN_ROWS * LN_COLS}]=zeros",
          Rand("f32", LN_COLS, 0.5, 1.5, 305), Rand("f32", LN_COLS, -0.5, 0.5, 306),
          f"f32[{LN_ROWS}]=zeros", f"f32[{LN_ROWS}]=zeros", f"i32:{LN_COLS}", f"i32:{LN_COLS}", "f32:1e-5"]
         + SCRATCH, {1: rel("f32", 4e-6), 4: rel("f32", 4e-6), 5: rel("f32", 4e-6)}, shared=16,
         expect=layer_norm),
    case("triton_matmul_f16", f"{TRITON}/matmul.sm_80.ptx", "matmul_kernel", f"{M // 64},{N // 64}", "128",
         [Rand("f16", M * K, -1, 1, 307), Rand("f16", K * N, -1, 1, 308), f"f16[{M * N}]=zeros",
          f"i32:{M}", f"i32:{N}", f"i32:{K}", f"i32:{K}", "i32:1", f"i32:{N}", "i32:1", f"i32:{N}", "i32:1"]
         + SCRATCH, {2: ulp("f16", 1)}, shared=8192, expect=matmul),
]
