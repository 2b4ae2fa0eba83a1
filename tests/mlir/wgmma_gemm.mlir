// Warpgroup MMA through NVGPU (sm_90a), the way MLIR's sm90 GEMM integration tests use it: the
// host encodes TMA tensor maps of a 64x64 f16 A (row-major, K contiguous) and a 64x64 f16 B
// (row-major, N contiguous), both with the 128-byte swizzle; one thread of a 128-thread block
// loads both tiles into 1024-byte-aligned workgroup memory (nvgpu.tma.async.load, completing
// on an mbarrier the warpgroup waits for); nvgpu.warpgroup.generate.descriptor makes the
// wgmma matrix descriptors and nvgpu.warpgroup.mma {transposeB} multiplies them (four
// wgmma.mma_async m64n64k16 with descriptors advanced along K); nvgpu.warpgroup.mma.store
// writes D (f32) to global memory. The host checks D against its own product: the entries are
// small integers, so every product and sum is exact and D must be equal, element for element.
// Printed: the number of differing elements, D's row 0 (first 8 columns) and D's sum.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_90a cubin-features=+ptx80"
// CHECK: sizes = [1] strides = [1] data =
// CHECK: [0]
// CHECK: sizes = [8] strides = [1] data =
// CHECK: [3,  -6,  6,  -3,  9,  0,  -9,  3]
// CHECK: sizes = [1] strides = [1] data =
// CHECK: [3]
!tileA = memref<64x64xf16, 3>
!tileB = memref<64x64xf16, 3>
!descA = !nvgpu.tensormap.descriptor<tensor = !tileA, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!descB = !nvgpu.tensormap.descriptor<tensor = !tileB, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
module attributes {gpu.container_module} {
  memref.global "private" @smemA : !tileA {alignment = 1024 : i64}
  memref.global "private" @smemB : !tileB {alignment = 1024 : i64}

  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %a = memref.alloc() : memref<64x64xf16>
    %b = memref.alloc() : memref<64x64xf16>
    // A[i][k] = (7i + 3k + 1) mod 9 - 4; B[k][n] = (5k + 3n + 2) mod 7 - 3.
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %i7 = arith.muli %i, %c7 : index
        %j3 = arith.muli %j, %c3 : index
        %sa = arith.addi %i7, %j3 : index
        %sa1 = arith.addi %sa, %c1 : index
        %ma = arith.remui %sa1, %c9 : index
        %va = arith.index_cast %ma : index to i32
        %four = arith.constant 4 : i32
        %va4 = arith.subi %va, %four : i32
        %fa = arith.sitofp %va4 : i32 to f16
        memref.store %fa, %a[%i, %j] : memref<64x64xf16>
        %i5 = arith.muli %i, %c5 : index
        %sb = arith.addi %i5, %j3 : index
        %two = arith.constant 2 : index
        %sb2 = arith.addi %sb, %two : index
        %mb = arith.remui %sb2, %c7 : index
        %vb = arith.index_cast %mb : index to i32
        %three = arith.constant 3 : i32
        %vb3 = arith.subi %vb, %three : i32
        %fb = arith.sitofp %vb3 : i32 to f16
        memref.store %fb, %b[%i, %j] : memref<64x64xf16>
      }
    }
    %s = gpu.wait async
    %da, %t1 = gpu.alloc async [%s] () : memref<64x64xf16>
    %db, %t2 = gpu.alloc async [%t1] () : memref<64x64xf16>
    %dd, %t3 = gpu.alloc async [%t2] () : memref<64x64xf32>
    %t4 = gpu.memcpy async [%t3] %da, %a : memref<64x64xf16>, memref<64x64xf16>
    %t5 = gpu.memcpy async [%t4] %db, %b : memref<64x64xf16>, memref<64x64xf16>
    gpu.wait [%t5]
    %ua = memref.cast %da : memref<64x64xf16> to memref<*xf16>
    %ub = memref.cast %db : memref<64x64xf16> to memref<*xf16>
    %mapA = nvgpu.tma.create.descriptor %ua box[%c64, %c64] : memref<*xf16> -> !descA
    %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xf16> -> !descB
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%nx = %c128, %ny = %c1, %nz = %c1) {
      %zero = arith.constant 0 : index
      %one = arith.constant 1 : index
      %bytes = arith.constant 16384 : index
      %tileA = memref.get_global @smemA : !tileA
      %tileB = memref.get_global @smemB : !tileB
      %bar = nvgpu.mbarrier.create -> !barrier
      %first = arith.cmpi eq, %tx, %zero : index
      scf.if %first {
        nvgpu.mbarrier.init %bar[%zero], %one : !barrier
      }
      gpu.barrier
      scf.if %first {
        nvgpu.tma.async.load %mapA[%zero, %zero], %bar[%zero] to %tileA : !descA, !barrier -> !tileA
        nvgpu.tma.async.load %mapB[%zero, %zero], %bar[%zero] to %tileB : !descB, !barrier -> !tileB
        nvgpu.mbarrier.arrive.expect_tx %bar[%zero], %bytes : !barrier
      }
      %phase = arith.constant 0 : i1
      %ticks = arith.constant 10000000 : index
      nvgpu.mbarrier.try_wait.parity %bar[%zero], %phase, %ticks : !barrier
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %wa = nvgpu.warpgroup.generate.descriptor %tileA, %mapA : !tileA, !descA -> !nvgpu.warpgroup.descriptor<tensor = !tileA>
      %wb = nvgpu.warpgroup.generate.descriptor %tileB, %mapB : !tileB, !descB -> !nvgpu.warpgroup.descriptor<tensor = !tileB>
      %d = nvgpu.warpgroup.mma %wa, %wb, %init {transposeB} : <tensor = !tileA>, <tensor = !tileB>, !acc -> !acc
      nvvm.wgmma.wait.group.sync.aligned 0
      nvgpu.warpgroup.mma.store %d, %dd : !acc to memref<64x64xf32>
      gpu.terminator
    }
    %out = memref.alloc() : memref<64x64xf32>
    %t6 = gpu.wait async
    %t7 = gpu.memcpy async [%t6] %out, %dd : memref<64x64xf32>, memref<64x64xf32>
    gpu.wait [%t7]
    // The host's product, the count of differing elements and D's sum.
    %zi = arith.constant 0 : i32
    %zf = arith.constant 0.0 : f32
    %wrong, %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%w0 = %zi, %s0 = %zf) -> (i32, f32) {
      %w3, %s3 = scf.for %j = %c0 to %c64 step %c1 iter_args(%w1 = %w0, %s1 = %s0) -> (i32, f32) {
        %ref = scf.for %k = %c0 to %c64 step %c1 iter_args(%r = %zf) -> (f32) {
          %x = memref.load %a[%i, %k] : memref<64x64xf16>
          %y = memref.load %b[%k, %j] : memref<64x64xf16>
          %xf = arith.extf %x : f16 to f32
          %yf = arith.extf %y : f16 to f32
          %p = arith.mulf %xf, %yf : f32
          %r2 = arith.addf %r, %p : f32
          scf.yield %r2 : f32
        }
        %got = memref.load %out[%i, %j] : memref<64x64xf32>
        %ne = arith.cmpf une, %got, %ref : f32
        %inc = arith.extui %ne : i1 to i32
        %w2 = arith.addi %w1, %inc : i32
        %s2 = arith.addf %s1, %got : f32
        scf.yield %w2, %s2 : i32, f32
      }
      scf.yield %w3, %s3 : i32, f32
    }
    %wrongs = memref.alloc() : memref<1xi32>
    memref.store %wrong, %wrongs[%c0] : memref<1xi32>
    %uw = memref.cast %wrongs : memref<1xi32> to memref<*xi32>
    call @printMemrefI32(%uw) : (memref<*xi32>) -> ()
    %row = memref.alloc() : memref<8xf32>
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %out[%c0, %j] : memref<64x64xf32>
      memref.store %v, %row[%j] : memref<8xf32>
    }
    %ur = memref.cast %row : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
    %sums = memref.alloc() : memref<1xf32>
    memref.store %sum, %sums[%c0] : memref<1xf32>
    %us = memref.cast %sums : memref<1xf32> to memref<*xf32>
    call @printMemrefF32(%us) : (memref<*xf32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
