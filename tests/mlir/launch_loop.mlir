// The same kernel launched 100 times in an scf.for loop, synchronously, on host-shared memory:
// a hot launch loop as MLIR emits it, with mgpuStreamCreate, mgpuModuleGetFunction,
// mgpuLaunchKernel, mgpuStreamSynchronize and mgpuStreamDestroy in every iteration. (An async
// token carried through scf.for iter_args does not lower in LLVM 22: "failed to legalize
// operation 'scf.for'".)
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [100,  101,  102,  103]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @increment(%x: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %v = memref.load %x[%i] : memref<4xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %x[%i] : memref<4xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c100 = arith.constant 100 : index
    %h = memref.alloc() : memref<4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %h[%i] : memref<4xi32>
    }
    %d = gpu.alloc host_shared () : memref<4xi32>
    memref.copy %h, %d : memref<4xi32> to memref<4xi32>
    scf.for %k = %c0 to %c100 step %c1 {
      gpu.launch_func @kernels::@increment
          blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xi32>)
    }
    memref.copy %d, %h : memref<4xi32> to memref<4xi32>
    %u = memref.cast %h : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
