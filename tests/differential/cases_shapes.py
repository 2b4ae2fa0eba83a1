"""Launch shapes beyond the usual: blocks that are not a multiple of the warp size (a partial
last warp), odd 2-D blocks, many small blocks, and block-wide barrier predicates over partial
warps, reusing the NVRTC kernels and their host expectations."""

from case_model import EXACT, Rand, case
from cases_nvrtc_core import NVRTC, blocks, histogram16
from elements import fma

N = 1000


def barrier_predicates(ins, size):
    out = []
    for b in blocks(ins[0], size, 0):
        out += [sum(v > 0 for v in b), int(any(v > 0 for v in b)), int(all(v > 0 for v in b))]
    return {1: out + [None] * (3 * N - len(out))}


CASES = [
    case("shape_saxpy_block40", f"{NVRTC}/elementwise.ptx", "saxpy", "25", "40",
         ["f32:2.5", Rand("f32", N, -10, 10, 801), Rand("f32", N, -10, 10, 802), f"i32:{N}"], {2: EXACT},
         expect=lambda ins: {2: [fma("f32", ins[0], x, y) for x, y in zip(ins[1], ins[2])]}),
    case("shape_transpose_odd_2d", f"{NVRTC}/elementwise.ptx", "transpose_naive", "8,6", "5,7",
         [Rand("f32", 40 * 30, -1, 1, 803), "f32[1200]=zeros", "i32:40", "i32:30"], {1: EXACT},
         expect=lambda ins: {1: [ins[0][r * 30 + c] for c in range(30) for r in range(40)]}),
    case("shape_barrier_predicates_block100", f"{NVRTC}/reduce.ptx", "barrier_predicates", "10", "100",
         [Rand("i32", N, -3, 5, 804), f"i32[{3 * N}]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: barrier_predicates(ins, 100)),
    case("shape_barrier_predicates_block1024", f"{NVRTC}/reduce.ptx", "barrier_predicates", "1", "1024",
         [Rand("i32", N, 1, 5, 805), f"i32[{3 * N}]=zeros", f"i32:{N}"], {1: EXACT},
         # Threads 1000..1023 vote false: count 1000, any 1, all 0.
         expect=lambda ins: {1: [1000, 1, 0] + [None] * (3 * N - 3)}),
    case("shape_lane_ids_block40", f"{NVRTC}/warp.ptx", "lane_ids", "3", "40", ["u32[120]=zeros"], {0: EXACT},
         expect=lambda ins: {0: [(t % 32) | (t // 32) << 8 for t in list(range(40)) * 3]}),
    case("shape_histogram_many_blocks", f"{NVRTC}/atomics.ptx", "histogram16", "200", "32",
         [Rand("u8", 5000, 0, 255, 806), "u32[16]=zeros", "i32:5000"], {1: EXACT},
         expect=lambda ins: {1: histogram16(ins)[1]}),
    case("shape_cg_tile_reduce_grid64", f"{NVRTC}/coop_groups.ptx", "cg_tile_reduce", "64", "32",
         [Rand("i32", 2048, -1000, 1000, 807), "i32[1]=zeros", "i32:2000"], {1: EXACT},
         expect=lambda ins: {1: [sum(ins[0][:2000])]}),
]
