// Two streams, each filling one buffer, joined by `gpu.wait async [a, b]`; the joined token
// feeds a kernel launch that adds the buffers; the result is copied back and printed.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [8] strides = [1] data =
// CHECK: [3,  3,  3,  3,  3,  3,  3,  3]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<?xf32>
      %y = memref.load %b[%i] : memref<?xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i] : memref<?xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %n = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    // Stream A: a = 1.0.
    %sa = gpu.wait async
    %a, %ta1 = gpu.alloc async [%sa] (%n) : memref<?xf32>
    %ta2 = gpu.memset async [%ta1] %a, %one : memref<?xf32>, f32
    // Stream B: b = 2.0, and the output buffer c.
    %sb = gpu.wait async
    %b, %tb1 = gpu.alloc async [%sb] (%n) : memref<?xf32>
    %tb2 = gpu.memset async [%tb1] %b, %two : memref<?xf32>, f32
    %c, %tb3 = gpu.alloc async [%tb2] (%n) : memref<?xf32>
    // Join both streams, then launch.
    %j = gpu.wait async [%ta2, %tb3]
    %tk = gpu.launch_func async [%j] @kernels::@add
        blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>)
    %h = memref.alloc(%n) : memref<?xf32>
    %tc = gpu.memcpy async [%tk] %h, %c : memref<?xf32>, memref<?xf32>
    %t1 = gpu.dealloc async [%tc] %a : memref<?xf32>
    %t2 = gpu.dealloc async [%t1] %b : memref<?xf32>
    %t3 = gpu.dealloc async [%t2] %c : memref<?xf32>
    gpu.wait [%t3]
    %u = memref.cast %h : memref<?xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %h : memref<?xf32>
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
