// The same program shape lowered with cubin-format=bin (ptxas from CUDA 13.0): the module is a
// sm_90 cubin (ELF), loaded with mgpuModuleLoad(data, size) instead of mgpuModuleLoadJIT.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=bin cubin-chip=sm_90 cubin-features=+ptx80"
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [0,  3,  6,  9]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @times3(%x: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %three = arith.constant 3.0 : f32
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.mulf %f, %three : f32
      memref.store %v, %x[%i] : memref<4xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %h = memref.alloc() : memref<4xf32>
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<4xf32>
    %t2 = gpu.launch_func async [%t1] @kernels::@times3
        blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xf32>)
    %t3 = gpu.memcpy async [%t2] %h, %d : memref<4xf32>, memref<4xf32>
    %t4 = gpu.dealloc async [%t3] %d : memref<4xf32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
