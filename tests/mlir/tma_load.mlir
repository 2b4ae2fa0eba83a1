// TMA through NVGPU (sm_90): the host encodes a tensor map of a 20x8 f32 memref
// (nvgpu.tma.create.descriptor → mgpuTensorMapEncodeTiledMemref) with a box of 16 rows of 8;
// one thread of the kernel loads the box at row 8 into workgroup memory
// (nvgpu.tma.async.load, completing on an nvgpu mbarrier the block waits for), and the block
// copies it out. Rows 8..19 hold 10 * row + column; rows 20..23 lie outside the tensor and load
// as zero.
//
// OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_90 cubin-features=+ptx80"
// CHECK: sizes = [16, 8] strides = [8, 1] data =
// CHECK: [[80,   81,   82,   83,   84,   85,   86,   87],
// CHECK:  [90,   91,   92,   93,   94,   95,   96,   97],
// CHECK:  [100,   101,   102,   103,   104,   105,   106,   107],
// CHECK:  [110,   111,   112,   113,   114,   115,   116,   117],
// CHECK:  [120,   121,   122,   123,   124,   125,   126,   127],
// CHECK:  [130,   131,   132,   133,   134,   135,   136,   137],
// CHECK:  [140,   141,   142,   143,   144,   145,   146,   147],
// CHECK:  [150,   151,   152,   153,   154,   155,   156,   157],
// CHECK:  [160,   161,   162,   163,   164,   165,   166,   167],
// CHECK:  [170,   171,   172,   173,   174,   175,   176,   177],
// CHECK:  [180,   181,   182,   183,   184,   185,   186,   187],
// CHECK:  [190,   191,   192,   193,   194,   195,   196,   197],
// CHECK:  [0,   0,   0,   0,   0,   0,   0,   0],
// CHECK:  [0,   0,   0,   0,   0,   0,   0,   0],
// CHECK:  [0,   0,   0,   0,   0,   0,   0,   0],
// CHECK:  [0,   0,   0,   0,   0,   0,   0,   0]]
!tile = memref<16x8xf32, 3>
!desc = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  memref.global "private" @tile : !tile

  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c20 = arith.constant 20 : index
    %c128 = arith.constant 128 : index
    %host = memref.alloc() : memref<20x8xf32>
    scf.for %r = %c0 to %c20 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %ri = arith.index_cast %r : index to i32
        %ci = arith.index_cast %c : index to i32
        %c10i = arith.constant 10 : i32
        %t = arith.muli %ri, %c10i : i32
        %v = arith.addi %t, %ci : i32
        %f = arith.sitofp %v : i32 to f32
        memref.store %f, %host[%r, %c] : memref<20x8xf32>
      }
    }
    %s = gpu.wait async
    %src, %t1 = gpu.alloc async [%s] () : memref<20x8xf32>
    %dst, %t2 = gpu.alloc async [%t1] () : memref<16x8xf32>
    %t3 = gpu.memcpy async [%t2] %src, %host : memref<20x8xf32>, memref<20x8xf32>
    gpu.wait [%t3]
    %unranked = memref.cast %src : memref<20x8xf32> to memref<*xf32>
    %map = nvgpu.tma.create.descriptor %unranked box[%c16, %c8] : memref<*xf32> -> !desc
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%nx = %c128, %ny = %c1, %nz = %c1) {
      %tile = memref.get_global @tile : !tile
      %bar = nvgpu.mbarrier.create -> !barrier
      %one = arith.constant 1 : index
      %zero = arith.constant 0 : index
      %bytes = arith.constant 512 : index
      %first = arith.cmpi eq, %tx, %zero : index
      scf.if %first {
        nvgpu.mbarrier.init %bar[%zero], %one : !barrier
      }
      gpu.barrier
      scf.if %first {
        %row = arith.constant 8 : index
        nvgpu.tma.async.load %map[%zero, %row], %bar[%zero] to %tile : !desc, !barrier -> !tile
        nvgpu.mbarrier.arrive.expect_tx %bar[%zero], %bytes : !barrier
      }
      %phase = arith.constant 0 : i1
      %ticks = arith.constant 10000000 : index
      nvgpu.mbarrier.try_wait.parity %bar[%zero], %phase, %ticks : !barrier
      %eight = arith.constant 8 : index
      %r = arith.divui %tx, %eight : index
      %c = arith.remui %tx, %eight : index
      %v = memref.load %tile[%r, %c] : !tile
      memref.store %v, %dst[%r, %c] : memref<16x8xf32>
      gpu.terminator
    }
    %out = memref.alloc() : memref<16x8xf32>
    %t4 = gpu.wait async
    %t5 = gpu.memcpy async [%t4] %out, %dst : memref<16x8xf32>, memref<16x8xf32>
    gpu.wait [%t5]
    %u = memref.cast %out : memref<16x8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    %exit_code = arith.constant 0 : i32
    return %exit_code : i32
  }
}
