// Two spin-waiting kernels on two streams: each raises its own flag, then spins until the
// other kernel's flag is raised. They finish only if they run concurrently; a runtime that
// serialises the two streams hangs here. The flags live in host-shared (managed) memory.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
// CHECK: sizes = [2] strides = [1] data =
// CHECK: [1,  1]
module attributes {gpu.container_module} {
  gpu.module @spin {
    gpu.func @raise_and_wait(%flags: memref<2xi32>, %mine: index, %other: index) kernel {
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %old = memref.atomic_rmw assign %one, %flags[%mine] : (i32, memref<2xi32>) -> i32
        scf.while : () -> () {
          // An atomic add of 0 reads the flag without the load being hoisted out of the loop.
          %seen = memref.atomic_rmw addi %zero, %flags[%other] : (i32, memref<2xi32>) -> i32
          %waiting = arith.cmpi eq, %seen, %zero : i32
          scf.condition(%waiting)
        } do {
          scf.yield
        }
      }
      gpu.return
    }
  }

  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %flags = gpu.alloc host_shared () : memref<2xi32>
    memref.store %zero, %flags[%c0] : memref<2xi32>
    memref.store %zero, %flags[%c1] : memref<2xi32>
    %s0 = gpu.wait async
    %s1 = gpu.wait async
    %k0 = gpu.launch_func async [%s0] @spin::@raise_and_wait
        blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%flags : memref<2xi32>, %c0 : index, %c1 : index)
    %k1 = gpu.launch_func async [%s1] @spin::@raise_and_wait
        blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%flags : memref<2xi32>, %c1 : index, %c0 : index)
    gpu.wait [%k0, %k1]
    %u = memref.cast %flags : memref<2xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
