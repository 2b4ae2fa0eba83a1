"""Cases the CPU device is known to get wrong, by name, with the diagnosis as the reason.

verify.py and compare.py still run and check these cases; a failure is reported as XFAIL with
this reason (not counted as failed), a pass as XPASS (the entry should go). Each diagnosis has
a minimal reproduction under repros/ (repros/check.py runs them)."""

_WGMMA = ("`wgmma.mma_async` (with wgmma.fence/commit_group/wait_group) of Triton's sm_90a "
          "`tl.dot` is rejected at load (repros/wgmma_m64n8k16_ones)")

_MAPA = ("`mapa.u64` (distributed shared memory of a cluster) faults as unsupported "
         "(repros/mapa_cluster_peer)")

XFAIL = {
    "cluster_exchange": _MAPA,
    "triton_matmul_f16@sm90": _WGMMA,
}
