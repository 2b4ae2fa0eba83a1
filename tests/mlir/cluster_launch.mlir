// A thread-block-cluster launch (gpu.launch_func ... clusters in ...), lowered to
// mgpuLaunchClusterKernel; sm_90 only. Each block writes 100 * its rank in the cluster +
// the cluster's x id.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_90 cubin-features=+ptx80"
// CHECK: sizes = [4] strides = [1] data =
// CHECK: [0,  100,  1,  101]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cluster_ids(%out: memref<4xi32>) kernel {
      %b = gpu.block_id x
      %rank = gpu.cluster_block_id x
      %cid = gpu.cluster_id x
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %r = arith.index_cast %rank : index to i32
        %c = arith.index_cast %cid : index to i32
        %c100 = arith.constant 100 : i32
        %m = arith.muli %r, %c100 : i32
        %v = arith.addi %m, %c : i32
        memref.store %v, %out[%b] : memref<4xi32>
      }
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<4xi32>
    %s = gpu.wait async
    %d, %t1 = gpu.alloc async [%s] () : memref<4xi32>
    %t2 = gpu.launch_func async [%t1] @kernels::@cluster_ids
        clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%d : memref<4xi32>)
    %t3 = gpu.memcpy async [%t2] %h, %d : memref<4xi32>, memref<4xi32>
    %t4 = gpu.dealloc async [%t3] %d : memref<4xi32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
