//! Warp collectives other than `shfl` in compiled code (`vote`, `match`, `redux`, `elect`,
//! `bar.warp.sync`, full member mask) against the interpreter, on data that makes lanes agree
//! and disagree, and with lanes that leave before a collective (the interpreter then runs the
//! block).

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, HEADER};

/// Results per thread of `collectives`.
const RESULTS: usize = 16;

const KERNELS: &str = r#"
// out[i * 16 + j]: the j-th collective result of x[i] in its warp.
.visible .entry collectives(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<6>; .reg .b32 %r<32>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    and.b32 %r6, %r5, 1;
    setp.ne.u32 %p1, %r6, 0;
    vote.sync.ballot.b32 %r7, %p1, 0xffffffff;
    vote.sync.all.pred %p2, %p1, 0xffffffff;
    vote.sync.any.pred %p3, %p1, 0xffffffff;
    vote.sync.uni.pred %p4, %p1, 0xffffffff;
    selp.u32 %r8, 1, 0, %p2; selp.u32 %r9, 2, 0, %p3; selp.u32 %r10, 4, 0, %p4;
    or.b32 %r8, %r8, %r9; or.b32 %r8, %r8, %r10;
    shr.u32 %r11, %r5, 28;
    match.any.sync.b32 %r12, %r11, 0xffffffff;
    match.all.sync.b32 %r13|%p5, %r11, 0xffffffff;
    selp.u32 %r14, 1, 0, %p5;
    cvt.u64.u32 %rd5, %r11;
    match.any.sync.b64 %r15, %rd5, 0xffffffff;
    redux.sync.add.u32 %r16, %r5, 0xffffffff;
    redux.sync.min.s32 %r17, %r5, 0xffffffff;
    redux.sync.max.u32 %r18, %r5, 0xffffffff;
    redux.sync.and.b32 %r19, %r5, 0xffffffff;
    redux.sync.or.b32 %r20, %r5, 0xffffffff;
    redux.sync.xor.b32 %r21, %r5, 0xffffffff;
    elect.sync %r22|%p5, 0xffffffff;
    selp.u32 %r23, 1, 0, %p5;
    bar.warp.sync -1;
    mul.wide.u32 %rd6, %r4, 64; add.s64 %rd7, %rd2, %rd6;
    st.global.v4.u32 [%rd7], {%r7, %r8, %r12, %r13};
    st.global.v4.u32 [%rd7+16], {%r14, %r15, %r16, %r17};
    st.global.v4.u32 [%rd7+32], {%r18, %r19, %r20, %r21};
    st.global.v4.u32 [%rd7+48], {%r22, %r23, %r4, %r11};
    ret;
}

// Lanes with x[i] == 0 leave before the vote: the rest of their warp meets without them.
.visible .entry vote_after_exits(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra DONE;
    setp.gt.u32 %p2, %r2, 5;
    vote.sync.ballot.b32 %r3, %p2, 0xffffffff;
    st.global.u32 [%rd5], %r3;
DONE:
    ret;
}

// The member mask in a register set once at the top, as nvcc writes it.
.visible .entry mask_in_register(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    mov.u32 %r9, -1;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    shfl.sync.down.b32 %r3|%p1, %r2, 3, 31, %r9;
    vote.sync.ballot.b32 %r4, %p1, %r9;
    redux.sync.max.u32 %r5, %r3, %r9;
    mul.wide.u32 %rd5, %r1, 16; add.s64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r1};
    ret;
}

// nvcc's shape of a grid-stride sum: the full mask set once, after the loop, right before the
// shuffles that read it.
.visible .entry mask_after_loop(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, 0; mov.u32 %r3, %r1;
LOOP:
    mul.wide.u32 %rd3, %r3, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r4, [%rd4];
    add.s32 %r2, %r2, %r4;
    add.s32 %r3, %r3, 64;
    setp.lt.u32 %p1, %r3, 256;
    @%p1 bra LOOP;
    mov.u32 %r9, -1;
    shfl.sync.down.b32 %r5|%p2, %r2, 16, 31, %r9;
    add.s32 %r2, %r2, %r5;
    shfl.sync.bfly.b32 %r6|%p3, %r2, 1, 31, %r9;
    mul.wide.u32 %rd5, %r1, 8; add.s64 %rd6, %rd2, %rd5;
    st.global.v2.u32 [%rd6], {%r2, %r6};
    ret;
}

// The mask set before a label another path reaches without setting it: not known there.
.visible .entry mask_before_a_landing(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 7;
    @%p1 bra SHUFFLE;
    mov.u32 %r9, -1;
SHUFFLE:
    shfl.sync.down.b32 %r3|%p2, %r1, 1, 31, %r9;
    mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r3;
    ret;
}

// A count of threads before a vote: were lanes to leave first, the block would run again in
// the interpreter and count twice, so the kernel is not compiled.
.visible .entry count_then_vote(.param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    atom.global.add.u32 %r1, [%rd1], 1;
    setp.lt.u32 %p1, %r1, 40;
    vote.sync.ballot.b32 %r2, %p1, 0xffffffff;
    st.global.u32 [%rd1+4], %r2;
    ret;
}

// The usual order, a warp reduction and then one atomic per warp, is compiled.
.visible .entry reduce_then_count(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd3, %rd1, %rd3;
    ld.global.u32 %r2, [%rd3];
    redux.sync.add.u32 %r3, %r2, 0xffffffff;
    and.b32 %r4, %r1, 31;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra DONE;
    atom.global.add.u32 %r5, [%rd2], %r3;
DONE:
    ret;
}
"#;

fn words_of(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `kernel` interpreted and compiled on `xs`, `out_words` words out: both outputs.
fn both(kernel: &str, xs: &[u32], out_words: usize, grid: u32, block: u32) -> [Vec<u32>; 2] {
    let (memory, program) = load(&format!("{HEADER}{KERNELS}"));
    let handle = program.kernel(kernel).unwrap();
    let compiled = compile(&program, kernel, true);
    let run = |use_compiled: bool| {
        let x = memory.alloc(4 * xs.len() as u64, 256).unwrap();
        memory.write(x, &words_of(xs)).unwrap();
        let out = memory.alloc(4 * out_words as u64, 256).unwrap();
        memory.write(out, &vec![0xee; 4 * out_words]).unwrap();
        let p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        let cfg = config(grid, block, 2);
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&handle, &cfg, &p).unwrap();
        }
        read_words(&memory, out, out_words)
    };
    [run(false), run(true)]
}

#[test]
fn votes_matches_reductions_and_elections_match() {
    let threads = 3 * 128;
    // Warp 0: every lane alike; warp 1: alternating; the rest: scattered, with edge values.
    let xs: Vec<u32> = (0..threads as u32)
        .map(|i| match i / 32 {
            0 => 0x3000_0001,
            1 => (i & 1) * 0x8000_0003,
            _ => match i % 9 {
                0 => u32::MAX,
                1 => 0x8000_0000,
                _ => i.wrapping_mul(2_654_435_761),
            },
        })
        .collect();
    let [want, got] = both("collectives", &xs, RESULTS * threads, 3, 128);
    assert_eq!(want, got);
    let at = |t: usize, j: usize| got[t * RESULTS + j];
    assert_eq!(at(0, 0), u32::MAX, "warp 0: every lane's predicate is set");
    assert_eq!(at(0, 1), 7, "all, any and uni");
    assert_eq!(at(40, 0), 0xaaaa_aaaa, "warp 1: odd lanes");
    assert_eq!(
        at(40, 6),
        16u32.wrapping_mul(0x8000_0003),
        "redux.add of warp 1"
    );
    assert_eq!(at(70, 12), 0, "lane 0 is elected");
    assert_eq!((at(64, 13), at(65, 13)), (1, 0));
}

#[test]
fn a_vote_after_some_lanes_left_matches() {
    let xs: Vec<u32> = (0..64u32)
        .map(|i| if i % 7 == 3 { 0 } else { i % 11 })
        .collect();
    let [want, got] = both("vote_after_exits", &xs, 64, 1, 64);
    assert_eq!(want, got);
    assert_eq!(got[3], 0xeeee_eeee, "a lane that left wrote nothing");
}

#[test]
fn a_full_mask_in_a_register_compiles_and_matches() {
    let xs: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let [want, got] = both("mask_in_register", &xs, 4 * 64, 1, 64);
    assert_eq!(want, got);
    assert_eq!(got[0], xs[3], "lane 0 reads lane 3");
    assert_eq!(got[1], 0x1fff_ffff, "the last three lanes are out of range");
}

#[test]
fn a_global_atomic_before_a_collective_keeps_the_kernel_interpreted() {
    let (_, program) = load(&format!("{HEADER}{KERNELS}"));
    let handle = program.kernel("count_then_vote").unwrap();
    let why = chevron_cpu_jit::CompiledKernel::compile(
        &program,
        &handle,
        &chevron_cpu_jit::CompileOptions::default(),
    )
    .unwrap_err();
    assert!(
        why.contains("global atomic a warp collective may follow"),
        "{why}"
    );
    let xs: Vec<u32> = (0..64u32).collect();
    let [want, got] = both("reduce_then_count", &xs, 1, 1, 64);
    assert_eq!(want, got);
    assert_eq!(got[0], 0xeeee_eeee_u32.wrapping_add((0..64).sum::<u32>()));
}

#[test]
fn a_full_mask_set_after_a_loop_compiles_and_matches() {
    let xs: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let [want, got] = both("mask_after_loop", &xs, 2 * 64, 1, 64);
    assert_eq!(want, got);
    let sum = |t: u32| (0..4).fold(0u32, |a, k| a.wrapping_add(xs[(t + 64 * k) as usize]));
    assert_eq!(
        got[0],
        sum(0).wrapping_add(sum(16)),
        "lane 0 adds lane 16's sum"
    );
}

#[test]
fn a_mask_set_before_a_landing_is_offered_and_matches() {
    // Lane 7 reaches the shuffle with the mask unset (0): known only at run time, it is
    // offered with the values (`codegen/collective.rs`), and lane 7 meets no other lane.
    let xs = vec![0u32; 64];
    let [want, got] = both("mask_before_a_landing", &xs, 64, 1, 64);
    assert_eq!(want, got);
    assert_eq!((got[6], got[7], got[8]), (7, 0, 9));
}
