// One async token used by several ops (fan-out) and then joined: what gpu-to-llvm does with
// a token that has several uses. k1 runs first; k2 and k3 both depend on k1's token only;
// `gpu.wait [...]` joins everything on the host. Also sets the default device (device 0).
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [3] strides = [1] data =
// CHECK: [1,  11,  101]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[slot] = out[0] + add (out[0] itself when slot is 0).
    gpu.func @step(%out: memref<3xi32>, %slot: index, %add: i32) kernel {
      %c0 = arith.constant 0 : index
      %base = memref.load %out[%c0] : memref<3xi32>
      %v = arith.addi %base, %add : i32
      memref.store %v, %out[%slot] : memref<3xi32>
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %dev = arith.constant 0 : i32
    gpu.set_default_device %dev
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i10 = arith.constant 10 : i32
    %i100 = arith.constant 100 : i32
    %out = gpu.alloc host_shared () : memref<3xi32>
    memref.store %i0, %out[%c0] : memref<3xi32>
    %s = gpu.wait async
    %k1 = gpu.launch_func async [%s] @kernels::@step
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<3xi32>, %c0 : index, %i1 : i32)
    %k2 = gpu.launch_func async [%k1] @kernels::@step
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<3xi32>, %c1 : index, %i10 : i32)
    %k3 = gpu.launch_func async [%k1] @kernels::@step
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<3xi32>, %c2 : index, %i100 : i32)
    gpu.wait [%k2, %k3]
    %u = memref.cast %out : memref<3xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
