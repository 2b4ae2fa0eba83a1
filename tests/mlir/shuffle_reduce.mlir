// Warp reductions with gpu.shuffle (xor butterfly; down, then idx to broadcast lane 0) and a
// block-wide gpu.all_reduce, on 2 warps holding 0..63. Lowered at opt-level 3, so the module
// load passes optLevel=3.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80 opt-level=3"
// CHECK: sizes = [5] strides = [1] data =
// CHECK: [496,  1520,  496,  1520,  2016]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp_sums(%out: memref<5xi32>) kernel {
      %c32 = arith.constant 32 : index
      %c2 = arith.constant 2 : index
      %w32 = arith.constant 32 : i32
      %zero = arith.constant 0 : i32
      %t = gpu.thread_id x
      %lane = arith.remui %t, %c32 : index
      %warp = arith.divui %t, %c32 : index
      %v = arith.index_cast %t : index to i32
      // Butterfly: every lane ends with the warp's sum.
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %x16, %p0 = gpu.shuffle xor %v, %o16, %w32 : i32
      %s16 = arith.addi %v, %x16 : i32
      %x8, %p1 = gpu.shuffle xor %s16, %o8, %w32 : i32
      %s8 = arith.addi %s16, %x8 : i32
      %x4, %p2 = gpu.shuffle xor %s8, %o4, %w32 : i32
      %s4 = arith.addi %s8, %x4 : i32
      %x2, %p3 = gpu.shuffle xor %s4, %o2, %w32 : i32
      %s2 = arith.addi %s4, %x2 : i32
      %x1, %p4 = gpu.shuffle xor %s2, %o1, %w32 : i32
      %sum = arith.addi %s2, %x1 : i32
      // Shuffle down: lane 0 ends with the sum (lanes past the end add 0).
      %d16, %q0 = gpu.shuffle down %v, %o16, %w32 : i32
      %e16 = arith.select %q0, %d16, %zero : i32
      %a16 = arith.addi %v, %e16 : i32
      %d8, %q1 = gpu.shuffle down %a16, %o8, %w32 : i32
      %e8 = arith.select %q1, %d8, %zero : i32
      %a8 = arith.addi %a16, %e8 : i32
      %d4, %q2 = gpu.shuffle down %a8, %o4, %w32 : i32
      %e4 = arith.select %q2, %d4, %zero : i32
      %a4 = arith.addi %a8, %e4 : i32
      %d2, %q3 = gpu.shuffle down %a4, %o2, %w32 : i32
      %e2 = arith.select %q3, %d2, %zero : i32
      %a2 = arith.addi %a4, %e2 : i32
      %d1, %q4 = gpu.shuffle down %a2, %o1, %w32 : i32
      %e1 = arith.select %q4, %d1, %zero : i32
      %a1 = arith.addi %a2, %e1 : i32
      // Broadcast lane 0's value.
      %bcast, %q5 = gpu.shuffle idx %a1, %zero, %w32 : i32
      %c0 = arith.constant 0 : index
      %c31 = arith.constant 31 : index
      %is_first = arith.cmpi eq, %lane, %c0 : index
      scf.if %is_first {
        memref.store %sum, %out[%warp] : memref<5xi32>
      }
      %is_last = arith.cmpi eq, %lane, %c31 : index
      scf.if %is_last {
        %slot = arith.addi %warp, %c2 : index
        memref.store %bcast, %out[%slot] : memref<5xi32>
      }
      gpu.return
    }

    gpu.func @block_sum(%out: memref<5xi32>) kernel {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %sum = gpu.all_reduce add %v uniform {} : (i32) -> (i32)
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        memref.store %sum, %out[%c4] : memref<5xi32>
      }
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %h = memref.alloc() : memref<5xi32>
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<5xi32>
    %t2 = gpu.launch_func async [%t1] @kernels::@warp_sums
        blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%d : memref<5xi32>)
    %t3 = gpu.launch_func async [%t2] @kernels::@block_sum
        blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%d : memref<5xi32>)
    %t4 = gpu.memcpy async [%t3] %h, %d : memref<5xi32>, memref<5xi32>
    %t5 = gpu.dealloc async [%t4] %d : memref<5xi32>
    gpu.wait [%t5]
    %u = memref.cast %h : memref<5xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
