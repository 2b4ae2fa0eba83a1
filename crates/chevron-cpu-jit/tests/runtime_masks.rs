//! Warp collectives whose member masks are known only at run time (cooperative groups' tiles,
//! CUB's logical warps) or partial, compiled against the interpreter: each lane offers its
//! mask with its value and meets the interpreter's partners of the warp's masks
//! (`context::collective`); a `shfl` from a lane outside the member mask reads 0; a warp whose
//! lanes part at such a collective runs in the interpreter.

mod common;

use common::{config, Setup, HEADER};

/// Words each thread of `tiles` stores.
const OUT: usize = 8;

const KERNELS: &str = r#"
// Tiles of 16 lanes, as `cg::tiled_partition<16>` computes their masks.
.visible .entry tiles(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<8>; .reg .b32 %r<32>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    and.b32 %r6, %r1, 16;
    mov.u32 %r7, 0xffff;
    shl.b32 %r8, %r7, %r6;
    bar.warp.sync %r8;
    shfl.sync.bfly.b32 %r9|%p1, %r5, 8, 0x101f, %r8;
    add.s32 %r10, %r5, %r9;
    shfl.sync.bfly.b32 %r11|%p2, %r10, 4, 0x101f, %r8;
    add.s32 %r10, %r10, %r11;
    shfl.sync.down.b32 %r12|%p3, %r10, 3, 0x101f, %r8;
    add.s32 %r13, %r1, 16; and.b32 %r13, %r13, 31;
    shfl.sync.idx.b32 %r14|%p4, %r5, %r13, 31, %r8;
    setp.gt.u32 %p5, %r5, 500;
    vote.sync.ballot.b32 %r15, %p5, %r8;
    vote.sync.all.pred %p6, %p5, %r8;
    selp.u32 %r16, 1, 0, %p6;
    shr.u32 %r17, %r5, 8;
    match.any.sync.b32 %r18, %r17, %r8;
    elect.sync %r19|%p7, %r8;
    selp.u32 %r20, 1, 0, %p7;
    selp.u32 %r21, 2, 0, %p3;
    selp.u32 %r22, 4, 0, %p4;
    or.b32 %r20, %r20, %r21; or.b32 %r20, %r20, %r22;
    shl.b32 %r19, %r19, 3; or.b32 %r19, %r19, %r20;
    mul.wide.u32 %rd5, %r4, 32; add.s64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r9, %r10, %r12, %r14};
    st.global.v4.u32 [%rd6+16], {%r15, %r16, %r18, %r19};
    ret;
}

// One partial mask, the same in every lane, with the whole warp at the collective.
.visible .entry same_partial(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    setp.ne.u32 %p1, %r2, 0;
    vote.sync.ballot.b32 %r3, %p1, 0x0000ffff;
    shfl.sync.idx.b32 %r4, %r2, 20, 31, 0x0000ffff;
    add.s32 %r5, %r3, %r4;
    st.global.u32 [%rd5], %r5;
    ret;
}

// The upper half of each warp leaves the lower half's collective: the interpreter runs it.
.visible .entry half_warps(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, %r2;
    and.b32 %r4, %r1, 31;
    setp.ge.u32 %p1, %r4, 16;
    @%p1 bra DONE;
    shfl.sync.bfly.b32 %r3, %r2, 1, 31, 0xffff;
    add.s32 %r3, %r3, %r2;
DONE:
    st.global.u32 [%rd5], %r3;
    ret;
}

// Each lane's group (lanes of one bucket) takes turns at a shuffle over the group's mask, as
// many times as the group has lanes, then adds to a global counter: a warp parting there would
// have its block run again by the interpreter after some lanes' atomics, so it stays so.
.visible .entry group_then_count(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    and.b32 %r3, %r2, 3;
    match.any.sync.b32 %r4, %r3, -1;
    mov.u32 %r5, %r4; mov.u32 %r6, 0;
LOOP:
    brev.b32 %r7, %r5; bfind.shiftamt.u32 %r8, %r7;
    shfl.sync.idx.b32 %r9, %r2, %r8, 31, %r4;
    add.s32 %r6, %r6, %r9;
    add.s32 %r10, %r5, -1; and.b32 %r5, %r5, %r10;
    setp.ne.u32 %p1, %r5, 0;
    @%p1 bra LOOP;
    atom.global.add.u32 %r11, [%rd2], %r6;
    ret;
}

// The lane masks, as warp-aggregation code forms a lane's rank among its group.
.visible .entry lane_masks(.param .u64 xs, .param .u64 out)
{
    .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %lanemask_eq; mov.u32 %r6, %lanemask_lt; mov.u32 %r7, %lanemask_le;
    mov.u32 %r8, %lanemask_gt; mov.u32 %r9, %lanemask_ge;
    mul.wide.u32 %rd3, %r4, 32; add.s64 %rd4, %rd2, %rd3;
    st.global.v4.u32 [%rd4], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd4+16], {%r9, %r4, %r4, %r4};
    ret;
}

// A 64-bit `match` has no room for a run-time mask: stays interpreted.
.visible .entry wide_match(.param .u64 xs, .param .u64 out)
{
    .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 16; mov.u32 %r3, 0xffff; shl.b32 %r4, %r3, %r2;
    cvt.u64.u32 %rd1, %r1;
    match.any.sync.b64 %r5, %rd1, %r4;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r5;
    ret;
}
"#;

/// `kernel` run on `xs` interpreted and compiled: both outputs of `out_words` words.
fn both(kernel: &str, xs: &[u32], out_words: usize, shape: (u32, u32)) -> [Vec<u32>; 2] {
    common::interpreted_and_compiled(KERNELS, kernel, xs, out_words, shape, &[])
}

#[test]
fn tiles_of_sixteen_lanes_match_the_interpreter() {
    let (grid, block) = (3u32, 64u32);
    let xs: Vec<u32> = (0..grid * block)
        .map(|i| match i / 32 {
            // Warp 0: every value above 500; warp 1: none.
            0 => 1000 + i,
            1 => i,
            _ => i.wrapping_mul(2_654_435_761) >> 22,
        })
        .collect();
    let [interpreted, compiled] = both("tiles", &xs, OUT * xs.len(), (grid, block));
    assert_eq!(interpreted, compiled);
    let at = |thread: usize, word: usize| compiled[OUT * thread + word];
    // Lane 0 reads lane 8's value; lane 16 reads lane 24's, both in their tiles.
    assert_eq!((at(0, 0), at(16, 0)), (xs[8], xs[24]));
    // The `idx` from the other tile reads 0; warp 0's tiles vote all, warp 1's none.
    assert_eq!(
        (at(0, 3), at(0, 4), at(16, 4), at(32, 4)),
        (0, 0xffff, 0xffff_0000, 0)
    );
    // Elected: each tile's first lane.
    assert_eq!((at(5, 7) >> 3, at(21, 7) >> 3), (0, 16));
}

#[test]
fn a_partial_mask_the_same_in_every_lane_matches() {
    let xs: Vec<u32> = (0..64).map(|i| (i % 3) * (i + 1)).collect();
    let [interpreted, compiled] = both("same_partial", &xs, 64, (1, 64));
    assert_eq!(interpreted, compiled);
}

#[test]
fn half_warps_at_a_collective_run_in_the_interpreter_alike() {
    let xs: Vec<u32> = (0..96).map(|i| i * 7 + 1).collect();
    let [interpreted, compiled] = both("half_warps", &xs, 96, (1, 96));
    assert_eq!(interpreted, compiled);
    assert_eq!((compiled[0], compiled[20]), (xs[0] + xs[1], xs[20]));
}

#[test]
fn a_wide_match_with_a_run_time_mask_stays_interpreted() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("wide_match").unwrap();
    let why = chevron_cpu_jit::CompiledKernel::compile(
        &setup.program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(why.contains("`Warp` is not compiled"), "{why}");
}

#[test]
fn a_global_atomic_beside_run_time_masks_stays_interpreted() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("group_then_count").unwrap();
    let why = chevron_cpu_jit::CompiledKernel::compile(
        &setup.program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(
        why.contains("global atomic in a kernel with warp collectives of run-time member masks"),
        "{why}"
    );
}

#[test]
fn lane_masks_match_the_interpreter() {
    let [interpreted, compiled] = both("lane_masks", &[0; 4], 8 * 128, (2, 64));
    assert_eq!(interpreted, compiled);
    // Thread 37 is lane 5.
    let lane5 = &compiled[8 * 37..8 * 37 + 5];
    assert_eq!(lane5, &[1 << 5, 0x1f, 0x3f, !0x3f, !0x1f]);
    // Every thread's masks, compiled with every group width (eq, lt, le, gt, ge).
    let masks = |t: usize| {
        let bit = 1u64 << (t % 32);
        let (below, up_to) = (bit - 1, 2 * bit - 1);
        [bit, below, up_to, !up_to, !below].map(|m| m as u32)
    };
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("lane_masks").unwrap();
    let cfg = config(2, 64, 2);
    for width in common::GROUPS {
        let grouped = common::compile_grouped(&setup.program, "lane_masks", width);
        let got = setup.run_in_out((&handle, Some(&grouped)), &cfg, &[0; 16], 4 * 8 * 128, &[]);
        for t in 0..128 {
            assert_eq!(
                got[8 * t..8 * t + 5],
                masks(t),
                "thread {t}, groups of {width}"
            );
        }
    }
}
