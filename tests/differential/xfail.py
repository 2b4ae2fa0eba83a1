"""Cases the CPU device is known to get wrong, by name, with the diagnosis as the reason.

verify.py and compare.py still run and check these cases; a failure is reported as XFAIL with
this reason (not counted as failed), a pass as XPASS (the entry should go). XFAIL applies to
both; XFAIL_AGAINST_GPU only to comparisons with a GPU run. Each diagnosis has
a minimal reproduction under repros/ (repros/check.py runs them)."""

_WGMMA = ("`wgmma.mma_async` (with wgmma.fence/commit_group/wait_group) of Triton's sm_90a "
          "`tl.dot` is rejected at load (repros/wgmma_m64n8k16_ones)")

_MAPA = ("`mapa.u64` (distributed shared memory of a cluster) faults as unsupported "
         "(repros/mapa_cluster_peer)")

XFAIL = {
    "cluster_exchange": _MAPA,
    "triton_matmul_f16@sm90": _WGMMA,
}

# Divergences only a GPU run shows (the host expectation cannot tell: the PTX ISA leaves the
# value unspecified, the hardware does not): used by compare.py on top of XFAIL.
XFAIL_AGAINST_GPU = {
    "probe_packed_half": ("`neg.f16x2`/`abs.f16x2` of a NaN keep its payload and flip/clear the "
                          "sign; the H200 returns the canonical NaN 0x7fff (repros/neg_abs_f16x2_nan)"),
}
