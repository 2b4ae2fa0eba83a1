"""MLIR 22 kernels (corpus/mlir: NVPTX output of the `gpu` dialect programs in tests/mlir),
with host expectations.

A memref argument expands into its descriptor: allocated pointer, aligned pointer, offset,
sizes…, strides…. The buffer is the aligned pointer; the allocated one is the same buffer
again (`ptr:N`), and offset, sizes and strides are i64 scalars."""

from case_model import EXACT, Rand, case
from elements import f32

MLIR = "corpus/mlir"


def memref(position, buffer, sizes, strides=None):
    """The descriptor arguments of a memref whose aligned pointer is argument position+1."""
    if strides is None:
        strides = [1]
    return [f"ptr:{position + 1}", buffer, "i64:0"] + [f"i64:{s}" for s in sizes + strides]


def reverse_blocks(values):
    return values[:32][::-1] + values[32:][::-1]


def rotate_blocks(values):
    return [values[b + (t + 1) % 32] for b in (0, 32) for t in range(32)]


def ids(ins):
    out = [0] * 32
    for by in range(2):
        for bx in range(2):
            for tz in range(2):
                for ty in range(2):
                    for tx in range(2):
                        block, thread = bx + 2 * by, tx + 2 * ty + 4 * tz
                        out[block * 8 + thread] = block * 100 + block * 8 + thread
    return {1: out}


CASES = [
    case("mlir_saxpy_bare", f"{MLIR}/bare_pointers.ptx", "saxpy", "1", "8",
         ["f32:2.5", Rand("f32", 8, -4, 4, 401), Rand("f32", 8, -4, 4, 402)], {2: EXACT},
         expect=lambda ins: {2: [f32(f32(ins[0] * x) + y) for x, y in zip(ins[1], ins[2])]}),
    case("mlir_reverse_block", f"{MLIR}/shared_memory.ptx", "reverse_block", "2", "32",
         memref(0, Rand("i32", 64, -1000, 1000, 403), [64]), {1: EXACT},
         expect=lambda ins: {1: reverse_blocks(ins[1])}),
    case("mlir_rotate_block", f"{MLIR}/shared_memory.ptx", "rotate_block", "2", "32",
         memref(0, Rand("i32", 64, -1000, 1000, 404), [64]), {1: EXACT}, shared=128,
         expect=lambda ins: {1: rotate_blocks(ins[1])}),
    case("mlir_warp_sums", f"{MLIR}/shuffle_reduce.ptx", "warp_sums", "1", "64",
         memref(0, "i32[5]=zeros", [5]), {1: EXACT},
         expect=lambda ins: {1: [496, 1520, 496, 1520, 0]}),
    case("mlir_block_sum", f"{MLIR}/shuffle_reduce.ptx", "block_sum", "1", "64",
         memref(0, "i32[5]=zeros", [5]), {1: EXACT}, expect=lambda ins: {1: [0, 0, 0, 0, 2016]}),
    case("mlir_step", f"{MLIR}/token_fanout.ptx", "step", "1", "1",
         memref(0, "i32[3]=fill:1", [3]) + ["i64:2", "i32:100"], {1: EXACT},
         expect=lambda ins: {1: [1, 1, 101]}),
    case("mlir_iota", f"{MLIR}/two_modules.producer.ptx", "iota", "1", "16",
         memref(0, "f32[16]=zeros", [16]), {1: EXACT}, expect=lambda ins: {1: list(range(16))}),
    case("mlir_scale_offset", f"{MLIR}/two_modules.consumer.ptx", "scale_offset", "1", "16",
         memref(0, Rand("f32", 16, -10, 10, 405), [16]) + ["f32:2.5", "i64:3"], {1: EXACT},
         expect=lambda ins: {1: [f32(f32(v * 2.5) + 3.0) for v in ins[1]]}),
    case("mlir_combine", f"{MLIR}/memops.ptx", "combine", "1", "4",
         memref(0, Rand("f32", 4, -10, 10, 406), [4]) + memref(5, Rand("f32", 4, -10, 10, 407), [4])
         + memref(10, Rand("i16", 4, -2**15, 2**15 - 1, 408), [4]) + memref(15, "i32[4]=zeros", [4]),
         {6: EXACT, 16: EXACT},
         expect=lambda ins: {6: [f32(x + y) for x, y in zip(ins[1], ins[6])], 16: [2 * h for h in ins[11]]}),
    case("mlir_add_dynamic", f"{MLIR}/join_streams.ptx", "add", "1", "32",
         memref(0, Rand("f32", 32, -10, 10, 409), [32]) + memref(5, Rand("f32", 32, -10, 10, 410), [32])
         + memref(10, "f32[32]=zeros", [32]), {11: EXACT},
         expect=lambda ins: {11: [f32(x + y) for x, y in zip(ins[1], ins[6])]}),
    case("mlir_async_main_kernel", f"{MLIR}/async_execute.ptx", "main_kernel", "1", "2",
         memref(0, "i32[2]=fill:42", [2]) + memref(5, "i32[2]=fill:42", [2]) + memref(10, "i32[2]=zeros", [2]),
         {11: EXACT}, expect=lambda ins: {11: [84, 84]}),
    case("mlir_increment", f"{MLIR}/launch_loop.ptx", "increment", "1", "4",
         memref(0, Rand("i32", 4, -100, 100, 411), [4]), {1: EXACT},
         expect=lambda ins: {1: [v + 1 for v in ins[1]]}),
    case("mlir_fill_2d", f"{MLIR}/host_register.ptx", "fill", "2", "3",
         memref(0, "i32[6]=zeros", [2, 3], [3, 1]), {1: EXACT},
         expect=lambda ins: {1: [100 * i + 10 * j for i in range(2) for j in range(3)]}),
    case("mlir_raise_and_wait", f"{MLIR}/concurrent_kernels.ptx", "raise_and_wait", "1", "32",
         memref(0, "i32[2]=fill:1", [2]) + ["i64:0", "i64:1"], {1: EXACT}, expect=lambda ins: {1: [1, 1]}),
    case("mlir_printf_3d", f"{MLIR}/printf_3d.ptx", "ids", "2,2,1", "2,2,2",
         memref(0, "i32[32]=zeros", [32]), {1: EXACT}, expect=ids,
         stdout=["block (1, 1, 0) thread (1, 1, 1) of (2, 2, 2)"]),
]
