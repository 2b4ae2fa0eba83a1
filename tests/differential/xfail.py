"""Cases the CPU device is known to get wrong, by name, with the diagnosis as the reason.

verify.py and compare.py still run and check these cases; a failure is reported as XFAIL with
this reason (not counted as failed), a pass as XPASS (the entry should go). Each diagnosis has
a minimal reproduction under repros/ (repros/check.py runs them)."""

_UNUSED_TEX = ("module load rejects all of advanced.ptx because texture_fetch (never launched "
               "here) holds `tex.1d.v4.f32.s32`; a GPU runs the other kernels "
               "(repros/unused_tex_rejects_module)")
_WMMA = ("`wmma.load.a/.b`, `wmma.mma.sync` and `wmma.store.d` (m16n16k16, m16n16k8 tf32) are "
         "rejected at load (repros/wmma_m16n16k16)")
_WGMMA = ("`wgmma.mma_async` (with wgmma.fence/commit_group/wait_group) of Triton's sm_90a "
          "`tl.dot` is rejected at load (repros/wgmma_m64n8k16_ones)")

XFAIL = {
    "ldg_and_clock": _UNUSED_TEX,
    "warp_redux": _UNUSED_TEX,
    "async_copy": _UNUSED_TEX,
    "checked_divide": _UNUSED_TEX,
    "wmma_f16_f32": _WMMA,
    "wmma_tf32": _WMMA,
    "triton_matmul_f16@sm90": _WGMMA,
}
