// gpu.alloc / gpu.memcpy (host to device, device to device, device to host) / gpu.memset
// (32-bit and 16-bit) / gpu.dealloc, all async with exactly one dependency, on one stream.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [10.5,  11.5,  12.5,  13.5]
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [-2,  -2,  -2,  -2]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // y[i] = x[i] + y[i]; w[i] = sext(h[i]) * 2
    gpu.func @combine(%x: memref<4xf32>, %y: memref<4xf32>, %h: memref<4xi16>, %w: memref<4xi32>)
        kernel {
      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<4xf32>
      %b = memref.load %y[%i] : memref<4xf32>
      %s = arith.addf %a, %b : f32
      memref.store %s, %y[%i] : memref<4xf32>
      %v = memref.load %h[%i] : memref<4xi16>
      %e = arith.extsi %v : i16 to i32
      %d = arith.addi %e, %e : i32
      memref.store %d, %w[%i] : memref<4xi32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %half = arith.constant 0.5 : f32
    %ten = arith.constant 10.0 : f32
    %minus1 = arith.constant -1 : i16
    // Host input: 0, 1, 2, 3.
    %hx = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %hx[%i] : memref<4xf32>
    }
    %s = gpu.wait async
    %x, %t1 = gpu.alloc async [%s] () : memref<4xf32>
    %t2 = gpu.memcpy async [%t1] %x, %hx : memref<4xf32>, memref<4xf32>
    %x2, %t3 = gpu.alloc async [%t2] () : memref<4xf32>
    %t4 = gpu.memcpy async [%t3] %x2, %x : memref<4xf32>, memref<4xf32>
    %y, %t5 = gpu.alloc async [%t4] () : memref<4xf32>
    %t6 = gpu.memset async [%t5] %y, %ten : memref<4xf32>, f32
    %h, %t7 = gpu.alloc async [%t6] () : memref<4xi16>
    %t8 = gpu.memset async [%t7] %h, %minus1 : memref<4xi16>, i16
    %w, %t9 = gpu.alloc async [%t8] () : memref<4xi32>
    %t10 = gpu.launch_func async [%t9] @kernels::@combine
        blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%x2 : memref<4xf32>, %y : memref<4xf32>, %h : memref<4xi16>, %w : memref<4xi32>)
    %hy = memref.alloc() : memref<4xf32>
    %hw = memref.alloc() : memref<4xi32>
    %t11 = gpu.memcpy async [%t10] %hy, %y : memref<4xf32>, memref<4xf32>
    %t12 = gpu.memcpy async [%t11] %hw, %w : memref<4xi32>, memref<4xi32>
    %t13 = gpu.dealloc async [%t12] %x : memref<4xf32>
    %t14 = gpu.dealloc async [%t13] %x2 : memref<4xf32>
    %t15 = gpu.dealloc async [%t14] %y : memref<4xf32>
    %t16 = gpu.dealloc async [%t15] %h : memref<4xi16>
    %t17 = gpu.dealloc async [%t16] %w : memref<4xi32>
    gpu.wait [%t17]
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %hy[%i] : memref<4xf32>
      %v2 = arith.addf %v, %half : f32
      memref.store %v2, %hy[%i] : memref<4xf32>
    }
    %uy = memref.cast %hy : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%uy) : (memref<*xf32>) -> ()
    %uw = memref.cast %hw : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%uw) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
