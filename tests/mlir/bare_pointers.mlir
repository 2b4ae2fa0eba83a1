// The bare-pointer calling convention on host and kernel side: each statically shaped memref is
// passed as one pointer, so saxpy(a, x, y) has 3 kernel parameters (f32, ptr, ptr) instead of 11.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80 kernel-bare-ptr-calling-convention=1 host-bare-ptr-calling-convention=1"
// CHECK: sizes = [8] strides = [1] data =
// CHECK: [1,  3,  5,  7,  9,  11,  13,  15]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @saxpy(%a: f32, %x: memref<8xf32>, %y: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %xv = memref.load %x[%i] : memref<8xf32>
      %yv = memref.load %y[%i] : memref<8xf32>
      %m = arith.mulf %a, %xv : f32
      %r = arith.addf %m, %yv : f32
      memref.store %r, %y[%i] : memref<8xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %hx = memref.alloc() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %hx[%i] : memref<8xf32>
    }
    %s = gpu.wait async
    %x, %t1 = gpu.alloc async [%s] () : memref<8xf32>
    %t2 = gpu.memcpy async [%t1] %x, %hx : memref<8xf32>, memref<8xf32>
    %y, %t3 = gpu.alloc async [%t2] () : memref<8xf32>
    %t4 = gpu.memset async [%t3] %y, %one : memref<8xf32>, f32
    %t5 = gpu.launch_func async [%t4] @kernels::@saxpy
        blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%two : f32, %x : memref<8xf32>, %y : memref<8xf32>)
    %t6 = gpu.memcpy async [%t5] %hx, %y : memref<8xf32>, memref<8xf32>
    %t7 = gpu.dealloc async [%t6] %x : memref<8xf32>
    %t8 = gpu.dealloc async [%t7] %y : memref<8xf32>
    gpu.wait [%t8]
    %u = memref.cast %hx : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
