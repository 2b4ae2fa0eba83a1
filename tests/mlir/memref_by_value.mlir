// Memref descriptors passed to kernels *by value*, as one aggregate parameter each, into host
// memory registered with gpu.host_register (MLIR's own CUDA integration tests register host
// memrefs the same way). Each kernel parameter is an !llvm.struct memref descriptor, which the
// NVPTX back end makes a `.param .align 8 .b8 NAME[40]` (rank 1) or `[56]` (rank 2) aggregate
// instead of the default expanded fields: the pointers the kernel dereferences sit inside the
// parameter bytes (at +8, the aligned pointer), so a runtime that translates registered host
// addresses must translate them there too. The rank-1 memref is a strided subview (offset 1,
// stride 2) of a registered f32 buffer; the rank-2 one is a whole registered i32 buffer written
// by an asynchronous launch.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa"
// CHECK: rank = 1 offset = 0 sizes = [8] strides = [1] data =
// CHECK: [0,  2,  2,  6,  4,  10,  6,  14]
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK: [1,   11,   21],
// CHECK: [101,   111,   121]
!desc1 = !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
!desc2 = !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
!strided = memref<?xf32, strided<[?], offset: ?>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // d[i] *= f for threadIdx.x = i, through the descriptor's aligned pointer, offset, stride.
    gpu.func @scale(%d: !desc1, %f: f32) kernel {
      %m = builtin.unrealized_conversion_cast %d : !desc1 to !strided
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : !strided
      %w = arith.mulf %v, %f : f32
      memref.store %w, %m[%i] : !strided
      gpu.return
    }
    // m[i][j] = 100 * i + 10 * j + 1, for blockIdx.x = i, threadIdx.x = j.
    gpu.func @fill(%d: !desc2) kernel {
      %m = builtin.unrealized_conversion_cast %d : !desc2 to memref<2x3xi32>
      %i = gpu.block_id x
      %j = gpu.thread_id x
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %c100 = arith.constant 100 : i32
      %c10 = arith.constant 10 : i32
      %c1 = arith.constant 1 : i32
      %a = arith.muli %ii, %c100 : i32
      %b = arith.muli %jj, %c10 : i32
      %ab = arith.addi %a, %b : i32
      %v = arith.addi %ab, %c1 : i32
      memref.store %v, %m[%i, %j] : memref<2x3xi32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    // x[k] = k; the kernel doubles x[1], x[3], x[5], x[7] through a strided subview.
    %x = memref.alloc() : memref<8xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      memref.store %kf, %x[%k] : memref<8xf32>
    }
    %xu = memref.cast %x : memref<8xf32> to memref<*xf32>
    gpu.host_register %xu : memref<*xf32>
    %odd = memref.subview %x[1] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2], offset: 1>>
    %odd_dyn = memref.cast %odd : memref<4xf32, strided<[2], offset: 1>> to !strided
    %d1 = builtin.unrealized_conversion_cast %odd_dyn : !strided to !desc1
    %two = arith.constant 2.0 : f32
    gpu.launch_func @kernels::@scale
        blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%d1 : !desc1, %two : f32)
    call @printMemrefF32(%xu) : (memref<*xf32>) -> ()
    gpu.host_unregister %xu : memref<*xf32>
    memref.dealloc %x : memref<8xf32>

    %m = memref.alloc() : memref<2x3xi32>
    %mu = memref.cast %m : memref<2x3xi32> to memref<*xi32>
    gpu.host_register %mu : memref<*xi32>
    %d2 = builtin.unrealized_conversion_cast %m : memref<2x3xi32> to !desc2
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @kernels::@fill
        blocks in (%c2, %c1, %c1) threads in (%c3, %c1, %c1)
        args(%d2 : !desc2)
    gpu.wait [%t]
    call @printMemrefI32(%mu) : (memref<*xi32>) -> ()
    gpu.host_unregister %mu : memref<*xi32>
    memref.dealloc %m : memref<2x3xi32>
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
