// The async dialect around gpu ops (fork and join of async.execute regions), as in upstream's
// async.mlir: the gpu ops are made async by -gpu-async-region, and the async regions run on the
// async runtime's worker threads (libmlir_async_runtime), so mgpu* calls arrive from several
// threads. Uses an inline gpu.launch (outlined to @main_kernel) on host-registered memory.
//
// OPT: -gpu-kernel-outlining
// OPT: -pass-pipeline="builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-nvvm),nvvm-attach-target{chip=sm_80 features=+ptx80})"
// OPT: -gpu-async-region -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary=format=isa
// OPT: -async-to-async-runtime -async-runtime-ref-counting
// OPT: -convert-async-to-llvm -convert-scf-to-cf -convert-func-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm -finalize-memref-to-llvm -reconcile-unrealized-casts
// CHECK: sizes = [2] strides = [1] data =
// CHECK: [84,  84]
func.func private @printMemrefI32(memref<*xi32>)

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.constant 2 : index
  %h0 = memref.alloc(%count) : memref<?xi32>
  %h0_unranked = memref.cast %h0 : memref<?xi32> to memref<*xi32>
  gpu.host_register %h0_unranked : memref<*xi32>
  %v0 = arith.constant 42 : i32
  memref.store %v0, %h0[%c0] : memref<?xi32>
  memref.store %v0, %h0[%c1] : memref<?xi32>

  // Copy h0 to b0 on the device.
  %t0, %f0 = async.execute () -> !async.value<memref<?xi32>> {
    %b0 = gpu.alloc(%count) : memref<?xi32>
    gpu.memcpy %b0, %h0 : memref<?xi32>, memref<?xi32>
    async.yield %b0 : memref<?xi32>
  }

  // Fork: copy b0 to b1 and to b2.
  %t1, %f1 = async.execute [%t0] (%f0 as %b0 : !async.value<memref<?xi32>>)
      -> !async.value<memref<?xi32>> {
    %b1 = gpu.alloc(%count) : memref<?xi32>
    gpu.memcpy %b1, %b0 : memref<?xi32>, memref<?xi32>
    async.yield %b1 : memref<?xi32>
  }
  %t2, %f2 = async.execute [%t0] (%f0 as %b0 : !async.value<memref<?xi32>>)
      -> !async.value<memref<?xi32>> {
    %b2 = gpu.alloc(%count) : memref<?xi32>
    gpu.memcpy %b2, %b0 : memref<?xi32>, memref<?xi32>
    async.yield %b2 : memref<?xi32>
  }

  // Join: h0 = b1 + b2.
  %t3 = async.execute [%t1, %t2] (%f1 as %b1 : !async.value<memref<?xi32>>,
                                   %f2 as %b2 : !async.value<memref<?xi32>>) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %count, %sy = %c1, %sz = %c1) {
      %v1 = memref.load %b1[%tx] : memref<?xi32>
      %v2 = memref.load %b2[%tx] : memref<?xi32>
      %sum = arith.addi %v1, %v2 : i32
      memref.store %sum, %h0[%tx] : memref<?xi32>
      gpu.terminator
    }
    async.yield
  }

  async.await %t3 : !async.token
  call @printMemrefI32(%h0_unranked) : (memref<*xi32>) -> ()
  %exit_code = arith.constant 0 : i32
  return %exit_code : i32
}
