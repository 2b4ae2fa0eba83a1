// An scf.for of three chained async launches per iteration, as a time-stepping loop is written:
// each iteration makes a stream (`gpu.wait async`), launches on it, and waits for it
// (mgpuStreamCreate, 3 x mgpuLaunchKernel, mgpuStreamSynchronize, mgpuStreamDestroy). With
// CHEVRON_AUTO_GRAPH=1 the launches of each iteration replay as one graph from the second
// iteration on (chevron reuses an idle destroyed stream, so the sequence repeats on one
// stream); the output is the same either way: (x + 1) * 2 - 1 twenty times from 0, 1, 2, 3.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [1048575,  2097151,  3145727,  4194303]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%x: memref<4xi32>, %v: i32) kernel {
      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<4xi32>
      %b = arith.addi %a, %v : i32
      memref.store %b, %x[%i] : memref<4xi32>
      gpu.return
    }
    gpu.func @double(%x: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %a = memref.load %x[%i] : memref<4xi32>
      %b = arith.addi %a, %a : i32
      memref.store %b, %x[%i] : memref<4xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c20 = arith.constant 20 : index
    %plus = arith.constant 1 : i32
    %minus = arith.constant -1 : i32
    %h = memref.alloc() : memref<4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %h[%i] : memref<4xi32>
    }
    %d = gpu.alloc host_shared () : memref<4xi32>
    memref.copy %h, %d : memref<4xi32> to memref<4xi32>
    scf.for %k = %c0 to %c20 step %c1 {
      %s = gpu.wait async
      %t1 = gpu.launch_func async [%s] @kernels::@add
          blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xi32>, %plus : i32)
      %t2 = gpu.launch_func async [%t1] @kernels::@double
          blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xi32>)
      %t3 = gpu.launch_func async [%t2] @kernels::@add
          blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xi32>, %minus : i32)
      gpu.wait [%t3]
    }
    memref.copy %d, %h : memref<4xi32> to memref<4xi32>
    %u = memref.cast %h : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    memref.dealloc %h : memref<4xi32>
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
