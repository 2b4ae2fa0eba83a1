// A 3-D launch (grid 2x2x1, blocks 2x2x2) where each thread writes its linearised
// block and thread ids, device-side gpu.printf from one thread (vprintf in the PTX), and
// per-thread private memory (memref.alloca).
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: block (1, 1, 0) thread (1, 1, 1) of (2, 2, 2)
// CHECK: sizes = [32] strides = [1] data =
// CHECK: [0,  1,  2,  3,  4,  5,  6,  7,  108,  109,  110,  111,  112,  113,  114,  115,  216,  217,  218,  219,  220,  221,  222,  223,  324,  325,  326,  327,  328,  329,  330,  331]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[block * 8 + thread] = block * 100 + block * 8 + thread, with block = bx + 2 * by and
    // thread = tx + 2 * ty + 4 * tz; the value goes through a private 2-element array.
    gpu.func @ids(%out: memref<32xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c100 = arith.constant 100 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %tz = gpu.thread_id z
      %bdx = gpu.block_dim x
      %bdy = gpu.block_dim y
      %bdz = gpu.block_dim z
      %by2 = arith.muli %by, %c2 : index
      %block = arith.addi %bx, %by2 : index
      %ty2 = arith.muli %ty, %c2 : index
      %tz4 = arith.muli %tz, %c4 : index
      %t1 = arith.addi %tx, %ty2 : index
      %thread = arith.addi %t1, %tz4 : index
      %base = arith.muli %block, %c8 : index
      %slot = arith.addi %base, %thread : index
      %hundreds = arith.muli %block, %c100 : index
      %value = arith.addi %hundreds, %slot : index
      %private = memref.alloca() : memref<2xi32, #gpu.address_space<private>>
      %v = arith.index_cast %value : index to i32
      memref.store %v, %private[%c1] : memref<2xi32, #gpu.address_space<private>>
      %w = memref.load %private[%c1] : memref<2xi32, #gpu.address_space<private>>
      memref.store %w, %out[%slot] : memref<32xi32>
      %is_bx = arith.cmpi eq, %bx, %c1 : index
      %is_by = arith.cmpi eq, %by, %c1 : index
      %c7 = arith.constant 7 : index
      %is_t = arith.cmpi eq, %thread, %c7 : index
      %b1 = arith.andi %is_bx, %is_by : i1
      %p = arith.andi %b1, %is_t : i1
      scf.if %p {
        %bz = gpu.block_id z
        gpu.printf "block (%lld, %lld, %lld) thread (%lld, %lld, %lld) of (%lld, %lld, %lld)\n",
            %bx, %by, %bz, %tx, %ty, %tz, %bdx, %bdy, %bdz : index, index, index, index, index, index, index, index, index
      }
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %h = memref.alloc() : memref<32xi32>
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<32xi32>
    %t2 = gpu.launch_func async [%t1] @kernels::@ids
        blocks in (%c2, %c2, %c1) threads in (%c2, %c2, %c2) args(%d : memref<32xi32>)
    %t3 = gpu.memcpy async [%t2] %h, %d : memref<32xi32>, memref<32xi32>
    %t4 = gpu.dealloc async [%t3] %d : memref<32xi32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<32xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
