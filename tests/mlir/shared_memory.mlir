// Workgroup (shared) memory and gpu.barrier: a kernel with a static workgroup attribution that
// reverses each block of 32 values, and a kernel using dynamic shared memory
// (gpu.dynamic_shared_memory, sized at launch) that rotates each block by one.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [64] strides = [1] data =
// CHECK: [30,  29,  28,  27,  26,  25,  24,  23,  22,  21,  20,  19,  18,  17,  16,  15,  14,  13,  12,  11,  10,  9,  8,  7,  6,  5,  4,  3,  2,  1,  0,  31,  62,  61,  60,  59,  58,  57,  56,  55,  54,  53,  52,  51,  50,  49,  48,  47,  46,  45,  44,  43,  42,  41,  40,  39,  38,  37,  36,  35,  34,  33,  32,  63]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reverse_block(%data: memref<64xi32>)
        workgroup(%tile: memref<32xi32, #gpu.address_space<workgroup>>) kernel {
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %base = arith.muli %b, %c32 : index
      %g = arith.addi %base, %t : index
      %v = memref.load %data[%g] : memref<64xi32>
      memref.store %v, %tile[%t] : memref<32xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c31, %t : index
      %w = memref.load %tile[%r] : memref<32xi32, #gpu.address_space<workgroup>>
      memref.store %w, %data[%g] : memref<64xi32>
      gpu.return
    }

    // data[block*32 + t] = old data[block*32 + (t+1)%32], through dynamic shared memory.
    gpu.func @rotate_block(%data: memref<64xi32>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %tile = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<32xi32, #gpu.address_space<workgroup>>
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %base = arith.muli %b, %c32 : index
      %g = arith.addi %base, %t : index
      %v = memref.load %data[%g] : memref<64xi32>
      memref.store %v, %tile[%t] : memref<32xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.addi %t, %c1 : index
      %r = arith.remui %n, %c32 : index
      %w = memref.load %tile[%r] : memref<32xi32, #gpu.address_space<workgroup>>
      memref.store %w, %data[%g] : memref<64xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %smem = arith.constant 128 : i32
    %h = memref.alloc() : memref<64xi32>
    scf.for %i = %c0 to %c64 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %h[%i] : memref<64xi32>
    }
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<64xi32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<64xi32>, memref<64xi32>
    %t3 = gpu.launch_func async [%t2] @kernels::@reverse_block
        blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%d : memref<64xi32>)
    %t4 = gpu.launch_func async [%t3] @kernels::@rotate_block
        blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%d : memref<64xi32>)
    %t5 = gpu.memcpy async [%t4] %h, %d : memref<64xi32>, memref<64xi32>
    %t6 = gpu.dealloc async [%t5] %d : memref<64xi32>
    gpu.wait [%t6]
    %u = memref.cast %h : memref<64xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
