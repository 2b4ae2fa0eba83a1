"""Differential test cases: corpus kernels with deterministic inputs, run on any chevron device.

Each case is one `chevron run` (by kernel name or demangled signature). Inputs come from a
seeded PRNG, so every machine builds the same bytes. `check` says how each saved output buffer is
compared with the reference device's: exact bytes, float ULP distance, or relative error for
approximate math; `skip` lists element indices whose value depends on the order in which threads
ran (atomic exchanges, CAS winners), which no two devices need agree on. `expect` computes the
outputs on the host, so one run can be verified on its own (verify.py). What a case holds:
case_model.py. The cases live in one module per compiler:

* cases_nvrtc_core.py: NVRTC element-wise, reductions, scans, warp collectives, atomics,
  device functions, memory spaces;
* cases_nvrtc_math.py: NVRTC bit operations, integer arithmetic, rounding, f32/f64 math;
* cases_nvrtc_extra.py: NVRTC structs by value, half/bf16, redux.sync, cp.async, printf, WMMA;
* cases_edges.py: NVRTC kernels fed NaN, infinities, signed zeros, subnormals, extremes;
* cases_probes.py: kernels/probes.cu, exact semantics of bfe/bfi/prmt, rounding to integral,
  saturating f64 conversions, sub-word loads, disjoint shuffle masks, shared atomics, mul24;
* cases_probes_float.py: kernels/probes.cu, flush-to-zero arithmetic, approximate instructions
  at tabulated special inputs, testp classes, dp4a/dp2a, clamped funnel shifts;
* cases_probes_half.py: kernels/probes.cu, packed f16x2/bf16x2 arithmetic and conversions;
* cases_probes_sync.py: kernels/probes.cu, barriers after early exit, named barriers,
  cp.async zero-fill, lop3/bmsk/szext/shf;
* cases_probes_warp.py: kernels/probes.cu, shfl.sync modes with clamp/segment masks,
  redux/vote.uni/match among odd lanes;
* cases_shapes.py: partial last warps, odd 2-D blocks, 1024-thread blocks, many blocks;
* cases_triton.py: Triton add, softmax, layer norm, fp16 matmul (sm_80);
* cases_mlir.py: MLIR 22 `gpu` dialect kernels (memref descriptors);
* cases_clang.py: clang 22 CUDA kernels at -O2, -O0, sm_90 -O3 and with line info;
* cases_variants.py: the cases above on other builds of the same sources (NVRTC compute_90,
  -G, -O0, -lineinfo, -rdc; nvcc PTX and fatbins; Triton sm_90a; MLIR 19), named CASE@TAG.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from case_model import EXACT, Rand, Struct, Values, case, rel, ulp  # noqa: E402
from cases_clang import CASES as CLANG  # noqa: E402
from cases_edges import CASES as EDGES  # noqa: E402
from cases_mlir import CASES as MLIR  # noqa: E402
from cases_nvrtc_core import CASES as NVRTC_CORE  # noqa: E402
from cases_nvrtc_extra import CASES as NVRTC_EXTRA  # noqa: E402
from cases_nvrtc_math import CASES as NVRTC_MATH  # noqa: E402
from cases_probes import CASES as PROBES  # noqa: E402
from cases_probes_float import CASES as PROBES_FLOAT  # noqa: E402
from cases_probes_half import CASES as PROBES_HALF  # noqa: E402
from cases_probes_sync import CASES as PROBES_SYNC  # noqa: E402
from cases_probes_warp import CASES as PROBES_WARP  # noqa: E402
from cases_shapes import CASES as SHAPES  # noqa: E402
from cases_triton import CASES as TRITON  # noqa: E402
from cases_variants import CASES as VARIANTS  # noqa: E402
from xfail import XFAIL, XFAIL_AGAINST_GPU  # noqa: E402

CASES = NVRTC_CORE + NVRTC_MATH + NVRTC_EXTRA + EDGES + PROBES + PROBES_FLOAT + PROBES_HALF + PROBES_SYNC + PROBES_WARP + SHAPES + TRITON + MLIR + CLANG + VARIANTS

for _case in CASES:
    _case["xfail"] = XFAIL.get(_case["name"])
    _case["xfail_gpu"] = XFAIL_AGAINST_GPU.get(_case["name"], _case["xfail"])

__all__ = ["CASES", "EXACT", "Rand", "Struct", "Values", "case", "rel", "ulp"]
