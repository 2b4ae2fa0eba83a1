"""NVRTC corpus cases: element-wise kernels, reductions and scans, warp collectives with
partial masks, atomics, device-function calls and memory spaces, with host expectations."""

from case_model import EXACT, Rand, case
from elements import f32, fma, round_to

NVRTC = "corpus/nvrtc/compute_80"
N = 1000
FULL = 0xFFFFFFFF


def wrap(v, bits=32):
    """Two's-complement wrap of a Python int (C signed overflow as the GPU does it)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def tree_reduce(values, op):
    """The shared-memory tree of the corpus reductions: buf[t] = op(buf[t], buf[t + s])."""
    buf = list(values)
    s = len(buf) // 2
    while s > 0:
        for t in range(s):
            buf[t] = op(buf[t], buf[t + s])
        s //= 2
    return buf[0]


def blocks(values, size, pad):
    """`values` cut into blocks of `size`, the last one padded."""
    out = []
    for start in range(0, len(values), size):
        chunk = values[start:start + size]
        out.append(chunk + [pad] * (size - len(chunk)))
    return out


def add32(a, b):
    return f32(a + b)


def hillis_steele(block, add):
    cur = list(block)
    off = 1
    while off < len(cur):
        cur = [add(cur[t], cur[t - off]) if t >= off else cur[t] for t in range(len(cur))]
        off <<= 1
    return cur


def warps(values):
    return [values[w:w + 32] for w in range(0, len(values), 32)]


def shfl_all(ins):
    out = []
    for warp in warps(ins[0]):
        for lane, v in enumerate(warp):
            out += [warp[lane + 3] if lane + 3 < 32 else v, warp[lane - 5] if lane >= 5 else v,
                    warp[lane ^ 1], warp[(lane + 7) & 31]]
    return {1: out + [0] * (512 - len(out))}


def shfl_width8(ins):
    out = []
    for i, v in enumerate(ins[0]):
        seg = i - i % 8
        out += [ins[0][i + 1] if i % 8 < 7 else v, ins[0][seg]]
    return {1: out}


def shfl_partial_mask(ins):
    out = []
    for warp in warps(ins[0]):
        total = wrap(sum(warp[:16]))
        out += [total] * 16 + warp[16:]
    return {1: out}


def warp_reduce_f64(ins):
    out = []
    for warp in warps(ins[0]):
        v = list(warp)
        for off in (16, 8, 4, 2, 1):
            v = [v[lane] + (v[lane + off] if lane + off < 32 else v[lane]) for lane in range(32)]
        out.append(v[0])
    return {1: out}


def votes(ins):
    out = []
    for warp in warps(ins[0]):
        ballot = sum(1 << lane for lane, v in enumerate(warp) if v > 0)
        out += [ballot, int(any(v < 0 for v in warp)), int(all(v != 0 for v in warp)), FULL]
    return {1: out}


def vote_divergent(ins):
    out = []
    for warp in warps(ins[0]):
        ballot = sum(1 << lane for lane, v in enumerate(warp) if lane & 1 and v > 10)
        out += [ballot if lane & 1 else 0 for lane in range(32)]
    return {1: out}


def match_lanes(ins):
    any_out, all_out, pred = [], [], []
    for warp in warps(ins[0]):
        same = all(v == warp[0] for v in warp)
        for v in warp:
            any_out.append(sum(1 << lane for lane, w in enumerate(warp) if w == v))
            all_out.append(FULL if same else 0)
            pred.append(int(same))
    return {1: any_out, 2: all_out, 3: pred}


def atomics_int(ins):
    threads = 8 * 128
    return {0: [3 * threads, -3 * threads, -16, 127, 0, -1, 0, None],
            1: [(5 + threads) % 17, (5 - threads) % 17, 3, 127]}


def atomics_u64(ins):
    return {0: [512, 512 << 33, 0, 127, 0, 2**64 - 1, 0, None, 42], 1: [-127, 127]}


def histogram16(ins):
    bins = [0] * 16
    for v in ins[0]:
        bins[v & 15] += 1
    return {1: bins}


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


def fibonacci(n):
    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)


def call_funcs(ins):
    x, n = ins[0], ins[4]
    return {1: [fma("f32", fma("f32", 1.5, v, -2.0), v, 0.25) for v in x],
            2: [factorial(i % 21) % 2**64 for i in range(n)],
            3: [fibonacci(i % 16) for i in range(n)]}


def sum_local_array(seed):
    buf = [wrap(seed * i + (i ^ seed)) for i in range(64)]
    return wrap(sum(buf[i] for i in range(63, -1, -((seed & 3) + 1))))


def matmul_fma(a, b, m, n, k, ty):
    return [_dot(a, b, r, c, n, k, ty) for r in range(m) for c in range(n)]


def _dot(a, b, r, c, n, k, ty):
    acc = 0.0
    for i in range(k):
        acc = fma(ty, a[r * k + i], b[i * n + c], acc)
    return acc


CASES = [
    # Element-wise.
    case("saxpy", f"{NVRTC}/elementwise.ptx", "saxpy", "4", "256",
         ["f32:1.5", Rand("f32", N, -10, 10, 1), Rand("f32", N, -10, 10, 2), f"i32:{N}"],
         {2: EXACT}, expect=lambda ins: {2: [fma("f32", ins[0], x, y)
                                             for x, y in zip(ins[1], ins[2])]}),
    case("vec_add_f32", f"{NVRTC}/elementwise.ptx", "vec_add_f32", "4", "256",
         [Rand("f32", N, -1e3, 1e3, 101), Rand("f32", N, -1e3, 1e3, 102), f"f32[{N}]=zeros", f"i32:{N}"],
         {2: EXACT}, expect=lambda ins: {2: [add32(x, y) for x, y in zip(ins[0], ins[1])]}),
    case("vec_add_i32", f"{NVRTC}/elementwise.ptx", "vec_add_i32", "4", "256",
         [Rand("i32", N, -2**31, 2**31 - 1, 103), Rand("i32", N, -2**31, 2**31 - 1, 104),
          f"i32[{N}]=zeros", f"i32:{N}"],
         {2: EXACT}, expect=lambda ins: {2: [wrap(x + y) for x, y in zip(ins[0], ins[1])]}),
    case("vec_add_f64", f"{NVRTC}/elementwise.ptx", "vec_add_f64", "8", "128",
         [Rand("f64", N, -1e3, 1e3, 3), Rand("f64", N, -1e3, 1e3, 4), f"f64[{N}]=zeros", f"i32:{N}"],
         {2: EXACT}, expect=lambda ins: {2: [x + y for x, y in zip(ins[0], ins[1])]}),
    case("vec_mul_i64_mangled", f"{NVRTC}/elementwise.ptx",
         "vec_mul_i(long long const*, long long const*, long long*, unsigned long)", "2", "512",
         [Rand("i64", N, -2**40, 2**40, 5), Rand("i64", N, -2**30, 2**30, 6), f"i64[{N}]=zeros", f"u64:{N}"],
         {2: EXACT}, expect=lambda ins: {2: [wrap(x * y, 64) for x, y in zip(ins[0], ins[1])]}),
    case("scale_grid_stride", f"{NVRTC}/elementwise.ptx", "scale_grid_stride", "3", "64",
         [Rand("f32", N, -5, 5, 7), "f32:0.75", f"i64:{N}"], {0: EXACT},
         expect=lambda ins: {0: [f32(x * ins[1]) for x in ins[0]]}),
    case("transpose", f"{NVRTC}/elementwise.ptx", "transpose_naive", "2,3", "16,16",
         [Rand("f32", 40 * 30, -1, 1, 8), "f32[1200]=zeros", "i32:40", "i32:30"], {1: EXACT},
         expect=lambda ins: {1: [ins[0][r * 30 + c] for c in range(30) for r in range(40)]}),
    case("convert_mix", f"{NVRTC}/elementwise.ptx", "convert_mix", "4", "256",
         [Rand("f32", N, -300, 300, 9), f"i32[{N}]=zeros", f"u8[{N}]=zeros", f"f64[{N}]=zeros", f"i32:{N}"],
         {1: EXACT, 2: EXACT, 3: EXACT},
         expect=lambda ins: {1: [int(v) for v in ins[0]],
                             2: [int(min(max(v, 0.0), 255.0)) for v in ins[0]],
                             3: [v * 0.5 for v in ins[0]]}),
    # Reductions, scans, barriers.
    case("block_reduce_sum", f"{NVRTC}/reduce.ptx", "block_reduce_sum", "4", "256",
         [Rand("f32", N, -1, 1, 10), "f32[4]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: [tree_reduce(b, add32) for b in blocks(ins[0], 256, 0.0)]}),
    case("block_reduce_max_i32", f"{NVRTC}/reduce.ptx", "block_reduce_max_i32", "8", "128",
         [Rand("i32", N, -10**9, 10**9, 11), "i32[8]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: [max(b) for b in blocks(ins[0], 128, -2**31)]}),
    case("block_scan_int", f"{NVRTC}/reduce.ptx", "block_scan<int, 128>(int const*, int*, int)", "8", "128",
         [Rand("i32", N, -1000, 1000, 12), f"i32[{N}]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: sum((hillis_steele(b, lambda x, y: wrap(x + y))
                                     for b in blocks(ins[0], 128, 0)), [])[:N]}),
    case("block_scan_float", f"{NVRTC}/reduce.ptx", "block_scan<float, 256>(float const*, float*, int)", "4", "256",
         [Rand("f32", N, -1, 1, 13), f"f32[{N}]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: sum((hillis_steele(b, add32) for b in blocks(ins[0], 256, 0.0)), [])[:N]}),
    case("barrier_predicates", f"{NVRTC}/reduce.ptx", "barrier_predicates", "4", "256",
         [Rand("i32", N, -3, 5, 14), f"i32[{3 * N}]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: sum(([sum(v > 0 for v in b), int(any(v > 0 for v in b)),
                                      int(all(v > 0 for v in b))]
                                     for b in blocks(ins[0], 256, 0)), []) + [None] * (3 * N - 12)}),
    case("matmul_tiled", f"{NVRTC}/matmul.ptx", "matmul_tiled", "3,2", "16,16",
         [Rand("f32", 20 * 33, -1, 1, 15), Rand("f32", 33 * 40, -1, 1, 16), "f32[800]=zeros", "i32:20", "i32:40", "i32:33"],
         {2: EXACT}, expect=lambda ins: {2: matmul_fma(ins[0], ins[1], 20, 40, 33, "f32")}),
    case("matmul_t_float", f"{NVRTC}/matmul.ptx", "matmul_t<float, 16>(float const*, float const*, float*, int)",
         "2,2", "16,16", [Rand("f32", 32 * 32, -1, 1, 105), Rand("f32", 32 * 32, -1, 1, 106), "f32[1024]=zeros", "i32:32"],
         {2: EXACT}, expect=lambda ins: {2: matmul_fma(ins[0], ins[1], 32, 32, 32, "f32")}),
    case("matmul_t_double", f"{NVRTC}/matmul.ptx", "matmul_t<double, 8>(double const*, double const*, double*, int)",
         "3,3", "8,8", [Rand("f64", 24 * 24, -1, 1, 17), Rand("f64", 24 * 24, -1, 1, 18), "f64[576]=zeros", "i32:24"],
         {2: EXACT}, expect=lambda ins: {2: matmul_fma(ins[0], ins[1], 24, 24, 24, "f64")}),
    # Warp collectives, partial masks.
    case("shfl_all", f"{NVRTC}/warp.ptx", "shfl_all", "2", "64",
         [Rand("i32", 64, -10**6, 10**6, 19), "i32[512]=zeros"], {1: EXACT},
         # Both blocks read in[threadIdx.x]; block 1 writes the second half.
         expect=lambda ins: {1: shfl_all(ins)[1][:256] * 2}),
    case("shfl_width8", f"{NVRTC}/warp.ptx", "shfl_width8", "1", "64",
         [Rand("f32", 64, -1, 1, 20), "f32[128]=zeros"], {1: EXACT}, expect=shfl_width8),
    case("shfl_partial_mask", f"{NVRTC}/warp.ptx", "shfl_partial_mask", "1", "64",
         [Rand("i32", 64, -100, 100, 21), "i32[64]=zeros"], {1: EXACT}, expect=shfl_partial_mask),
    case("warp_reduce_f64", f"{NVRTC}/warp.ptx", "warp_reduce_f64", "2", "128",
         [Rand("f64", 256, -1, 1, 22), "f64[8]=zeros"], {1: EXACT}, expect=warp_reduce_f64),
    case("votes", f"{NVRTC}/warp.ptx", "votes", "1", "96",
         [Rand("i32", 96, -2, 5, 23), "u32[12]=zeros"], {1: EXACT}, expect=votes),
    case("vote_divergent", f"{NVRTC}/warp.ptx", "vote_divergent", "1", "64",
         [Rand("i32", 64, 0, 20, 24), "u32[64]=zeros"], {1: EXACT}, expect=vote_divergent),
    case("match_lanes", f"{NVRTC}/warp.ptx", "match_lanes", "1", "64",
         [Rand("i32", 64, 0, 3, 25), "u32[64]=zeros", "u32[64]=zeros", "i32[64]=zeros"],
         {1: EXACT, 2: EXACT, 3: EXACT}, expect=match_lanes),
    case("match_all_uniform", f"{NVRTC}/warp.ptx", "match_lanes", "1", "64",
         ["i32[64]=fill:7", "u32[64]=zeros", "u32[64]=zeros", "i32[64]=zeros"],
         {1: EXACT, 2: EXACT, 3: EXACT}, expect=match_lanes),
    case("match_u64", f"{NVRTC}/warp.ptx", "match_u64", "1", "64",
         [Rand("u64", 64, 2**40, 2**40 + 3, 107), "u32[64]=zeros"], {1: EXACT},
         expect=lambda ins: {1: match_lanes(ins)[1]}),
    case("lane_ids", f"{NVRTC}/warp.ptx", "lane_ids", "2", "96", ["u32[192]=zeros"], {0: EXACT},
         expect=lambda ins: {0: [(t % 32) | (t // 32) << 8 for t in list(range(96)) * 2]}),
    case("cg_tile16_max", f"{NVRTC}/coop_groups.ptx", "cg_tile16_max", "1", "128",
         [Rand("f32", 128, -1, 1, 26), "f32[8]=zeros"], {1: EXACT},
         expect=lambda ins: {1: [max(ins[0][i:i + 16]) for i in range(0, 128, 16)]}),
    case("cg_tile_reduce", f"{NVRTC}/coop_groups.ptx", "cg_tile_reduce", "4", "256",
         [Rand("i32", N, -1000, 1000, 27), "i32[1]=zeros", f"i32:{N}"], {1: EXACT},
         expect=lambda ins: {1: [sum(ins[0])]}),
    # Atomics across blocks (order-dependent elements skipped).
    case("atomics_int", f"{NVRTC}/atomics.ptx", "atomics_int", "8", "128",
         ["i32[8]=fill:0", "u32[4]=fill:5", "i32:3"], {0: EXACT, 1: EXACT}, skip={0: [7]},
         expect=atomics_int),
    case("atomics_u64", f"{NVRTC}/atomics.ptx", "atomics_u64", "4", "128",
         ["u64[9]=zeros", "i64[2]=zeros"], {0: EXACT, 1: EXACT}, skip={0: [7]}, expect=atomics_u64),
    case("atomics_float", f"{NVRTC}/atomics.ptx", "atomics_float", "4", "256",
         ["f32[3]=zeros", "f64[2]=zeros", f"i32:{N}"], {0: EXACT, 1: EXACT}, skip={0: [2]},
         # Every partial sum is a multiple of 0.5 below 2^23: exact in any order.
         expect=lambda ins: {0: [float(N), sum(i * 0.5 for i in range(N)), None],
                             1: [float(N), float(sum(range(N)))]}),
    case("atomics_cas_loop", f"{NVRTC}/atomics.ptx", "atomics_cas_loop", "2", "64",
         ["f32[1]=fill:1", "f64[1]=fill:-1e300", Rand("f32", 100, -1, 2, 108, integer=True), "i32:100"],
         {0: EXACT, 1: EXACT},
         # Factors in {-1, 0, 1, 2}: every partial product is exact in any order.
         expect=lambda ins: {0: [_product(ins[2])], 1: [float(max(ins[2]))]}),
    case("atomics_scoped", f"{NVRTC}/atomics.ptx", "atomics_scoped", "1", "128",
         ["i32[4]=zeros"], {0: EXACT}, skip={0: [2]}, expect=lambda ins: {0: [128, 128, None, 7]}),
    case("histogram16", f"{NVRTC}/atomics.ptx", "histogram16", "4", "128",
         [Rand("u8", 5000, 0, 255, 28), "u32[16]=zeros", "i32:5000"], {1: EXACT}, expect=histogram16),
    # Device functions: recursion, struct returns, indirect calls, local memory.
    case("call_funcs", f"{NVRTC}/device_funcs.ptx", "call_funcs", "2", "64",
         [Rand("f32", 100, -2, 2, 29), "f32[100]=zeros", "u64[100]=zeros", "i32[100]=zeros", "i32:100"],
         {1: EXACT, 2: EXACT, 3: EXACT}, expect=call_funcs),
    case("call_minmax", f"{NVRTC}/device_funcs.ptx", "call_minmax", "1", "1",
         [Rand("i32", 50, -1000, 1000, 30), "i32:50", "i32[2]=zeros"], {2: EXACT},
         expect=lambda ins: {2: [min(ins[0]), max(ins[0])]}),
    case("call_indirect", f"{NVRTC}/device_funcs.ptx", "call_indirect", "1", "128",
         [Rand("f32", 100, -2, 2, 31), Rand("f32", 100, -2, 2, 32), "f32[100]=zeros", "i32:1", "i32:100"],
         {2: EXACT}, expect=lambda ins: {2: [f32(a * b) for a, b in zip(ins[0], ins[1])]}),
    case("call_indirect_max", f"{NVRTC}/device_funcs.ptx", "call_indirect", "1", "128",
         [Rand("f32", 100, -2, 2, 109), Rand("f32", 100, -2, 2, 110), "f32[100]=zeros", "i32:2", "i32:100"],
         {2: EXACT}, expect=lambda ins: {2: [max(a, b) for a, b in zip(ins[0], ins[1])]}),
    case("local_memory", f"{NVRTC}/device_funcs.ptx", "local_memory", "2", "64", ["i32[128]=zeros"],
         {0: EXACT}, expect=lambda ins: {0: [sum_local_array(t) for t in range(128)]}),
    # Memory spaces: dynamic shared memory, globals, constants, generic pointers.
    case("reverse_dyn_smem", f"{NVRTC}/memory_spaces.ptx", "reverse_dyn_smem", "4", "256",
         [Rand("i32", 1024, -10**6, 10**6, 33), "i32[1024]=zeros", "i32:1024"], {1: EXACT}, shared=1024,
         expect=lambda ins: {1: sum((b[::-1] for b in blocks(ins[0], 256, 0)), [])}),
    case("dyn_smem_two_arrays", f"{NVRTC}/memory_spaces.ptx", "dyn_smem_two_arrays", "1", "64",
         [Rand("f32", 64, -1, 1, 111), "f32[64]=zeros", "i32[64]=zeros"], {1: EXACT, 2: EXACT}, shared=512,
         expect=lambda ins: {1: ins[0][::-1], 2: [int(ins[0][(t + 1) % 64] > 0) for t in range(64)]}),
    case("use_globals", f"{NVRTC}/memory_spaces.ptx", "use_globals", "1", "64",
         [Rand("f32", 64, -4, 4, 112), "f32[64]=zeros", "i32:64"], {1: EXACT},
         expect=lambda ins: {1: [f32(fma("f32", x, [1, .5, .25, .125, 2, 4, 8, 16][i & 7], i & 15) + 0.0)
                                 for i, x in enumerate(ins[0])]}),
    case("generic_pointers", f"{NVRTC}/memory_spaces.ptx", "generic_pointers", "1", "32",
         [Rand("f32", 32, -1, 1, 34), "f32[32]=zeros", "i32:1"], {1: EXACT},
         expect=lambda ins: {1: [2.0 * v for v in ins[0]]}),
    case("generic_pointers_global", f"{NVRTC}/memory_spaces.ptx", "generic_pointers", "1", "32",
         [Rand("f32", 32, -1, 1, 113), "f32[32]=zeros", "i32:0"], {1: EXACT},
         expect=lambda ins: {1: list(ins[0])}),
]


def _product(values):
    p = 1.0
    for v in values:
        p *= v
    return round_to("f32", p)


