"""The same cases on other builds of the same sources: NVRTC for compute_90 and with -G,
-Xptxas -O0, -lineinfo and -rdc; nvcc's PTX and fatbins (PTX-only, SASS+PTX, uncompressed);
Triton for sm_90a at PTX ISA 9.0; MLIR 19's lowering of the MLIR programs. Each variant is
named CASE@TAG and keeps its case's arguments, checks and host expectation."""

from case_model import ulp
from cases_mlir import CASES as MLIR
from cases_nvrtc_core import CASES as NVRTC_CORE
from cases_nvrtc_extra import CASES as NVRTC_EXTRA
from cases_nvrtc_math import CASES as NVRTC_MATH
from cases_triton import CASES as TRITON

NVRTC80 = "corpus/nvrtc/compute_80/"
NVRTC90 = "corpus/nvrtc/compute_90/"

# tag -> {file a case uses: the file the variant uses}
BUILDS = {
    "nvrtc90": {NVRTC80 + f: NVRTC90 + f for f in (
        "atomics.ptx", "elementwise.ptx", "float_math.fast.ptx", "half.ptx", "reduce.ptx",
        "structs.ptx", "warp.ptx")},
    "nvrtc90_rdc": {NVRTC80 + "device_funcs.ptx": NVRTC90 + "device_funcs.rdc.ptx"},
    "rdc": {NVRTC80 + "device_funcs.ptx": NVRTC80 + "device_funcs.rdc.ptx"},
    "debug": {NVRTC80 + "reduce.ptx": NVRTC80 + "reduce.debug.ptx"},
    "O0": {NVRTC80 + "atomics.ptx": NVRTC80 + "atomics.O0.ptx"},
    "lineinfo": {NVRTC80 + "elementwise.ptx": NVRTC80 + "elementwise.lineinfo.ptx"},
    "nvcc": {NVRTC80 + "elementwise.ptx": "corpus/nvcc/elementwise.sm_80.ptx",
             NVRTC80 + "float_math.fast.ptx": "corpus/nvcc/float_math.fast.sm_80.ptx",
             NVRTC80 + "matmul.ptx": "corpus/nvcc/matmul.sm_80.ptx",
             NVRTC80 + "warp.ptx": "corpus/nvcc/warp.sm_80.ptx"},
    "nvcc_fatbin": {NVRTC80 + "atomics.ptx": "corpus/nvcc/atomics.compute_80.fatbin",
                    NVRTC80 + "elementwise.ptx": "corpus/nvcc/elementwise.sm_80.sm_90.compute_90.fatbin",
                    NVRTC80 + "structs.ptx": "corpus/nvcc/structs.sm_80.compute_80.uncompressed.fatbin"},
    "sm90": {"corpus/triton/%s.sm_80.ptx" % k: "corpus/triton/%s.sm_90.ptx90.ptx" % k
             for k in ("add", "softmax", "layer_norm", "matmul")},
    "mlir19": {"corpus/mlir/%s.ptx" % k: "corpus/mlir-llvm19/%s.ptx" % k for k in (
        "concurrent_kernels", "join_streams", "memops", "token_fanout", "two_modules.consumer",
        "two_modules.producer")},
}


# Where a build's PTX leaves the result open. bf16_native for compute_90 uses `mul.bf16` and
# `add.bf16` without a rounding modifier, which the PTX ISA lets ptxas contract into one fma (the
# H200 does: one rounding instead of two), so the result is only known within 1 bf16 ULP.
LOOSER = {"bf16_native@nvrtc90": {1: ulp("bf16", 1)}}


def loosened(case, checks):
    expect = case["expect"]

    def within(ins):
        return {n: (v if isinstance(v, tuple) or n not in checks else (v, checks[n]))
                for n, v in expect(ins).items()}
    return dict(case, check={**case["check"], **checks}, expect=within)


def variants(cases):
    out = []
    for tag, files in BUILDS.items():
        for case in cases:
            if case["file"] in files:
                name = "%s@%s" % (case["name"], tag)
                variant = dict(case, name=name, file=files[case["file"]], xfail=None)
                out.append(loosened(variant, LOOSER[name]) if name in LOOSER else variant)
    return out


CASES = variants(NVRTC_CORE + NVRTC_MATH + NVRTC_EXTRA + TRITON + MLIR)
