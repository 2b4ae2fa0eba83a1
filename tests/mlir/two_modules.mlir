// Two gpu.modules (two code objects, two module loads), launched synchronously (gpu.launch_func
// without `async`: a stream is created, launched on, synchronized and destroyed per launch), on
// host-shared (managed) memory that the host reads directly. The second module's kernel takes a
// scalar f32 and an index argument besides the memref.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [16] strides = [1] data =
// CHECK: [1,  4,  7,  10,  13,  16,  19,  22,  25,  28,  31,  34,  37,  40,  43,  46]
module attributes {gpu.container_module} {
  gpu.module @producer {
    gpu.func @iota(%out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %out[%i] : memref<16xf32>
      gpu.return
    }
  }
  gpu.module @consumer {
    // out[i] = out[i] * scale + offset (offset given as an index).
    gpu.func @scale_offset(%out: memref<16xf32>, %scale: f32, %offset: index) kernel {
      %i = gpu.thread_id x
      %v = memref.load %out[%i] : memref<16xf32>
      %o = arith.index_cast %offset : index to i32
      %of = arith.sitofp %o : i32 to f32
      %m = arith.mulf %v, %scale : f32
      %r = arith.addf %m, %of : f32
      memref.store %r, %out[%i] : memref<16xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %three = arith.constant 3.0 : f32
    %buf = gpu.alloc host_shared () : memref<16xf32>
    gpu.launch_func @producer::@iota blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%buf : memref<16xf32>)
    gpu.launch_func @consumer::@scale_offset blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%buf : memref<16xf32>, %three : f32, %c1 : index)
    %u = memref.cast %buf : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
