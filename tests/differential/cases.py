"""Differential test cases: corpus kernels with deterministic inputs, run on any chevron device.

Each case is one `chevron run` (by kernel name or demangled signature). Inputs come from a
seeded PRNG, so every machine builds the same bytes. `check` says how each saved output buffer is
compared with the reference device's: exact bytes, float ULP distance, or relative error for
approximate math; `skip` lists element indices whose value depends on the order in which threads
ran (atomic exchanges, CAS winners), which no two devices need agree on.
"""

import random
import struct

NVRTC = "corpus/nvrtc/compute_80"


class Rand:
    """A buffer argument filled from a seeded PRNG, written as a file of raw elements."""

    FORMATS = {"f32": "f", "f64": "d", "i32": "i", "u32": "I", "i64": "q", "u64": "Q", "u8": "B"}

    def __init__(self, ty, count, lo, hi, seed, integer=None):
        self.ty, self.count, self.lo, self.hi, self.seed = ty, count, lo, hi, seed
        self.integer = ty not in ("f32", "f64") if integer is None else integer

    def values(self):
        rng = random.Random(self.seed)
        if self.integer:
            return [rng.randint(self.lo, self.hi) for _ in range(self.count)]
        return [rng.uniform(self.lo, self.hi) for _ in range(self.count)]

    def data(self):
        return struct.pack("<%d%s" % (self.count, self.FORMATS[self.ty]), *self.values())


def case(name, file, kernel, grid, block, args, check, shared=0, skip=None):
    return {
        "name": name,
        "file": file,
        "kernel": kernel,
        "grid": grid,
        "block": block,
        "shared": shared,
        "args": args,
        "check": check,
        "skip": skip or {},
    }


EXACT = "exact"


def ulp(ty, n):
    return ("ulp", ty, n)


def rel(ty, tol):
    return ("rel", ty, tol)


N = 1000
CASES = [
    # Element-wise.
    case("saxpy", f"{NVRTC}/elementwise.ptx", "saxpy", "4", "256",
         ["f32:1.5", Rand("f32", N, -10, 10, 1), Rand("f32", N, -10, 10, 2), f"i32:{N}"],
         {2: EXACT}),
    case("vec_add_f64", f"{NVRTC}/elementwise.ptx", "vec_add_f64", "8", "128",
         [Rand("f64", N, -1e3, 1e3, 3), Rand("f64", N, -1e3, 1e3, 4), f"f64[{N}]=zeros", f"i32:{N}"],
         {2: EXACT}),
    case("vec_mul_i64_mangled", f"{NVRTC}/elementwise.ptx",
         "vec_mul_i(long long const*, long long const*, long long*, unsigned long)", "2", "512",
         [Rand("i64", N, -2**40, 2**40, 5), Rand("i64", N, -2**30, 2**30, 6), f"i64[{N}]=zeros", f"u64:{N}"],
         {2: EXACT}),
    case("scale_grid_stride", f"{NVRTC}/elementwise.ptx", "scale_grid_stride", "3", "64",
         [Rand("f32", N, -5, 5, 7), "f32:0.75", f"i64:{N}"], {0: EXACT}),
    case("transpose", f"{NVRTC}/elementwise.ptx", "transpose_naive", "2,3", "16,16",
         [Rand("f32", 40 * 30, -1, 1, 8), "f32[1200]=zeros", "i32:40", "i32:30"], {1: EXACT}),
    case("convert_mix", f"{NVRTC}/elementwise.ptx", "convert_mix", "4", "256",
         [Rand("f32", N, -300, 300, 9), f"i32[{N}]=zeros", f"u8[{N}]=zeros", f"f64[{N}]=zeros", f"i32:{N}"],
         {1: EXACT, 2: EXACT, 3: EXACT}),
    # Reductions, scans, barriers.
    case("block_reduce_sum", f"{NVRTC}/reduce.ptx", "block_reduce_sum", "4", "256",
         [Rand("f32", N, -1, 1, 10), "f32[4]=zeros", f"i32:{N}"], {1: EXACT}),
    case("block_reduce_max_i32", f"{NVRTC}/reduce.ptx", "block_reduce_max_i32", "8", "128",
         [Rand("i32", N, -10**9, 10**9, 11), "i32[8]=zeros", f"i32:{N}"], {1: EXACT}),
    case("block_scan_int", f"{NVRTC}/reduce.ptx", "block_scan<int, 128>(int const*, int*, int)", "8", "128",
         [Rand("i32", N, -1000, 1000, 12), f"i32[{N}]=zeros", f"i32:{N}"], {1: EXACT}),
    case("block_scan_float", f"{NVRTC}/reduce.ptx", "block_scan<float, 256>(float const*, float*, int)", "4", "256",
         [Rand("f32", N, -1, 1, 13), f"f32[{N}]=zeros", f"i32:{N}"], {1: EXACT}),
    case("barrier_predicates", f"{NVRTC}/reduce.ptx", "barrier_predicates", "4", "256",
         [Rand("i32", N, -3, 5, 14), f"i32[{3 * N}]=zeros", f"i32:{N}"], {1: EXACT}),
    case("matmul_tiled", f"{NVRTC}/matmul.ptx", "matmul_tiled", "3,2", "16,16",
         [Rand("f32", 20 * 33, -1, 1, 15), Rand("f32", 33 * 40, -1, 1, 16), "f32[800]=zeros", "i32:20", "i32:40", "i32:33"],
         {2: EXACT}),
    case("matmul_t_double", f"{NVRTC}/matmul.ptx", "matmul_t<double, 8>(double const*, double const*, double*, int)",
         "3,3", "8,8", [Rand("f64", 24 * 24, -1, 1, 17), Rand("f64", 24 * 24, -1, 1, 18), "f64[576]=zeros", "i32:24"],
         {2: EXACT}),
    # Warp collectives, partial masks.
    case("shfl_all", f"{NVRTC}/warp.ptx", "shfl_all", "2", "64",
         [Rand("i32", 64, -10**6, 10**6, 19), "i32[512]=zeros"], {1: EXACT}),
    case("shfl_width8", f"{NVRTC}/warp.ptx", "shfl_width8", "1", "64",
         [Rand("f32", 64, -1, 1, 20), "f32[128]=zeros"], {1: EXACT}),
    case("shfl_partial_mask", f"{NVRTC}/warp.ptx", "shfl_partial_mask", "1", "64",
         [Rand("i32", 64, -100, 100, 21), "i32[64]=zeros"], {1: EXACT}),
    case("warp_reduce_f64", f"{NVRTC}/warp.ptx", "warp_reduce_f64", "2", "128",
         [Rand("f64", 256, -1, 1, 22), "f64[8]=zeros"], {1: EXACT}),
    case("votes", f"{NVRTC}/warp.ptx", "votes", "1", "96",
         [Rand("i32", 96, -2, 5, 23), "u32[12]=zeros"], {1: EXACT}),
    case("vote_divergent", f"{NVRTC}/warp.ptx", "vote_divergent", "1", "64",
         [Rand("i32", 64, 0, 20, 24), "u32[64]=zeros"], {1: EXACT}),
    case("match_lanes", f"{NVRTC}/warp.ptx", "match_lanes", "1", "64",
         [Rand("i32", 64, 0, 3, 25), "u32[64]=zeros", "u32[64]=zeros", "i32[64]=zeros"],
         {1: EXACT, 2: EXACT, 3: EXACT}),
    case("lane_ids", f"{NVRTC}/warp.ptx", "lane_ids", "2", "96", ["u32[192]=zeros"], {0: EXACT}),
    case("cg_tile16_max", f"{NVRTC}/coop_groups.ptx", "cg_tile16_max", "1", "128",
         [Rand("f32", 128, -1, 1, 26), "f32[8]=zeros"], {1: EXACT}),
    case("cg_tile_reduce", f"{NVRTC}/coop_groups.ptx", "cg_tile_reduce", "4", "256",
         [Rand("i32", N, -1000, 1000, 27), "i32[1]=zeros", f"i32:{N}"], {1: EXACT}),
    # Atomics across blocks (order-dependent elements skipped).
    case("atomics_int", f"{NVRTC}/atomics.ptx", "atomics_int", "8", "128",
         ["i32[8]=fill:0", "u32[4]=fill:5", "i32:3"], {0: EXACT, 1: EXACT}, skip={0: [7]}),
    case("atomics_u64", f"{NVRTC}/atomics.ptx", "atomics_u64", "4", "128",
         ["u64[9]=zeros", "i64[2]=zeros"], {0: EXACT, 1: EXACT}, skip={0: [7]}),
    case("atomics_float", f"{NVRTC}/atomics.ptx", "atomics_float", "4", "256",
         ["f32[3]=zeros", "f64[2]=zeros", f"i32:{N}"], {0: EXACT, 1: EXACT}, skip={0: [2]}),
    case("histogram16", f"{NVRTC}/atomics.ptx", "histogram16", "4", "128",
         [Rand("u8", 5000, 0, 255, 28), "u32[16]=zeros", "i32:5000"], {1: EXACT}),
    # Device functions: recursion, struct returns, indirect calls, local memory.
    case("call_funcs", f"{NVRTC}/device_funcs.ptx", "call_funcs", "2", "64",
         [Rand("f32", 100, -2, 2, 29), "f32[100]=zeros", "u64[100]=zeros", "i32[100]=zeros", "i32:100"],
         {1: EXACT, 2: EXACT, 3: EXACT}),
    case("call_minmax", f"{NVRTC}/device_funcs.ptx", "call_minmax", "1", "1",
         [Rand("i32", 50, -1000, 1000, 30), "i32:50", "i32[2]=zeros"], {2: EXACT}),
    case("call_indirect", f"{NVRTC}/device_funcs.ptx", "call_indirect", "1", "128",
         [Rand("f32", 100, -2, 2, 31), Rand("f32", 100, -2, 2, 32), "f32[100]=zeros", "i32:1", "i32:100"],
         {2: EXACT}),
    case("local_memory", f"{NVRTC}/device_funcs.ptx", "local_memory", "2", "64", ["i32[128]=zeros"], {0: EXACT}),
    # Memory spaces: dynamic shared memory, globals, constants, generic pointers.
    case("reverse_dyn_smem", f"{NVRTC}/memory_spaces.ptx", "reverse_dyn_smem", "4", "256",
         [Rand("i32", 1024, -10**6, 10**6, 33), "i32[1024]=zeros", "i32:1024"], {1: EXACT}, shared=1024),
    case("generic_pointers", f"{NVRTC}/memory_spaces.ptx", "generic_pointers", "1", "32",
         [Rand("f32", 32, -1, 1, 34), "f32[32]=zeros", "i32:1"], {1: EXACT}),
    # Bit operations and integer arithmetic.
    case("bitops32", f"{NVRTC}/bitops.ptx", "bitops32", "1", "32",
         [Rand("u32", 32, 0, 2**32 - 1, 35), "u32[320]=zeros"], {1: EXACT}),
    case("bitops64", f"{NVRTC}/bitops.ptx", "bitops64", "1", "32",
         [Rand("u64", 32, 0, 2**64 - 1, 36), "u64[160]=zeros"], {1: EXACT}),
    case("int_arith", f"{NVRTC}/bitops.ptx", "int_arith", "1", "64",
         [Rand("i32", 64, -2**31, 2**31 - 1, 37), Rand("i32", 64, -1000, 1000, 38), "i64[384]=zeros"], {2: EXACT}),
    # Floating point: directed rounding is exact; library math within tolerances.
    case("rounding_f32", f"{NVRTC}/float_math.ptx", "rounding_f32", "1", "64",
         [Rand("f32", 64, -3, 3, 39), Rand("f32", 64, 0.1, 3, 40), "f32[384]=zeros"], {2: EXACT}),
    case("rounding_f64", f"{NVRTC}/double_math.ptx", "rounding_f64", "1", "64",
         [Rand("f64", 64, -3, 3, 41), Rand("f64", 64, 0.1, 3, 42), "f64[256]=zeros"], {2: EXACT}),
    case("precise_math", f"{NVRTC}/float_math.ptx", "precise_math", "1", "128",
         [Rand("f32", 128, -4, 4, 43), "f32[1024]=zeros", "i32:128"], {1: ulp("f32", 4)}),
    case("fast_intrinsics", f"{NVRTC}/float_math.fast.ptx", "fast_intrinsics", "1", "128",
         [Rand("f32", 128, -4, 4, 44), "f32[768]=zeros", "i32:128"], {1: rel("f32", 2e-5)}),
    case("math_f64", f"{NVRTC}/double_math.ptx", "math_f64", "1", "128",
         [Rand("f64", 128, -4, 4, 45), "f64[1024]=zeros", "i32:128"], {1: EXACT}),
    case("dot_f64", f"{NVRTC}/double_math.ptx", "dot_f64", "1", "256",
         [Rand("f64", N, -1, 1, 46), Rand("f64", N, -1, 1, 47), "f64[1]=zeros", f"i32:{N}"], {2: EXACT}),
]
