"""Probe kernels for warp collectives (kernels/probes.cu): shfl.sync in all four modes with
per-lane source lanes and clamp/segment-mask operands (value and in-range predicate, following
the PTX ISA's pseudo-code), and redux.sync/vote.sync.uni/match.sync among the odd lanes only."""

from case_model import EXACT, Rand, Values, case
from cases_nvrtc_core import warps, wrap
from cases_probes import PROBES

FULL = 0xFFFFFFFF
ODD = 0xAAAAAAAA


def shfl(warp, lane, b, c, mode):
    bval, cval, segmask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & segmask) | (cval & ~segmask & 31)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - bval
        ok = j >= max_lane
    elif mode == "down":
        j = lane + bval
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= max_lane
    else:
        j = min_lane | (bval & ~segmask & 31)
        ok = j <= max_lane
    return (warp[j] if ok else warp[lane]), int(ok)


def shfl_modes(ins):
    out, preds = [], []
    for w, warp in enumerate(warps(ins[0])):
        for lane in range(32):
            t = 32 * w + lane
            pred = 0
            for k, mode in enumerate(("up", "down", "bfly", "idx")):
                value, ok = shfl(warp, lane, ins[1][t], ins[2][t], mode)
                out.append(value)
                pred |= ok << k
            preds.append(pred)
    return {3: out, 4: preds}


def partial_collectives(ins):
    out = []
    for warp in warps(ins[0]):
        odd = [v for lane, v in enumerate(warp) if lane & 1]
        total = sum(odd) & FULL
        and_all, or_all = FULL, 0
        for v in odd:
            and_all &= v
            or_all |= v
        uni = int(len({v & 1 for v in odd}) == 1)
        same = len({v >> 28 for v in odd}) == 1
        for lane, v in enumerate(warp):
            if not lane & 1:
                out += [0] * 8
                continue
            any_mask = sum(1 << k for k, w in enumerate(warp) if k & 1 and w >> 29 == v >> 29)
            out += [total, min(odd), wrap(max(wrap(x) for x in odd)) & FULL, and_all, or_all, uni,
                    ODD if same else 0, any_mask | int(same) << 31]
    return {1: out}


SEGMASKS = [0, 0x10, 0x18, 0x1C, 0x1E, 0x1F, 0x18, 0]
CLAMPS = [(SEGMASKS[k % 8] << 8) | v for k, v in enumerate(Rand("u32", 64, 0, 31, 721).values())]

CASES = [
    case("probe_shfl_modes", PROBES, "shfl_modes", "1", "64",
         [Rand("i32", 64, -10**6, 10**6, 722), Rand("u32", 64, 0, 40, 723), Values("u32", CLAMPS),
          "i32[256]=zeros", "u32[64]=zeros"], {3: EXACT, 4: EXACT}, expect=shfl_modes),
    case("probe_partial_collectives", PROBES, "partial_collectives", "1", "64",
         [Values("u32", Rand("u32", 32, 0, 2**32 - 1, 724).values()
                 + [0x70000000 | v for v in Rand("u32", 32, 0, 2**28 - 1, 725).values()]), "u32[512]=zeros"],
         {1: EXACT}, expect=partial_collectives),
]
