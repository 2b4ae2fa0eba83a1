// Default pipeline options (target sm_50, PTX 6.0).
// gpu.host_register of a host memref (rank 2, so the descriptor has two sizes and strides);
// the kernel reads and writes the registered host memory directly, then it is unregistered.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa"
// CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
// CHECK: [0,   10,   20],
// CHECK: [100,   110,   120]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // m[i][j] = 100 * i + 10 * j, for blockIdx.x = i, threadIdx.x = j.
    gpu.func @fill(%m: memref<2x3xi32>) kernel {
      %i = gpu.block_id x
      %j = gpu.thread_id x
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %c100 = arith.constant 100 : i32
      %c10 = arith.constant 10 : i32
      %a = arith.muli %ii, %c100 : i32
      %b = arith.muli %jj, %c10 : i32
      %v = arith.addi %a, %b : i32
      memref.store %v, %m[%i, %j] : memref<2x3xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %m = memref.alloc() : memref<2x3xi32>
    %u = memref.cast %m : memref<2x3xi32> to memref<*xi32>
    gpu.host_register %u : memref<*xi32>
    %s = gpu.wait async
    %t = gpu.launch_func async [%s] @kernels::@fill
        blocks in (%c2, %c1, %c1) threads in (%c3, %c1, %c1)
        args(%m : memref<2x3xi32>)
    gpu.wait [%t]
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    gpu.host_unregister %u : memref<*xi32>
    memref.dealloc %m : memref<2x3xi32>
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
