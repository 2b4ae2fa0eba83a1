//! `bar.red.popc` / `.and` / `.or` (`__syncthreads_count/and/or`) compiled against the
//! interpreter (`codegen/block_red.rs`): several in a row, a negated predicate, one in a loop,
//! plain barriers between them, threads that exit first, warps at a plain `bar.sync` while the
//! rest wait at a `bar.red` of the same barrier, several blocks on one worker, a fault after
//! one; a `bar.red` beside a warp collective.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, Setup, HEADER};

/// Words each thread of `votes` stores.
const OUT: usize = 8;

const KERNELS: &str = r#"
// Threads whose word is 0xdead leave first; the rest tally their words' bits.
.visible .entry votes(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    setp.eq.u32 %p7, %r5, 0xdead;
    @%p7 bra DONE;
    and.b32 %r6, %r5, 1;
    setp.ne.u32 %p1, %r6, 0;
    bar.red.popc.u32 %r7, 0, %p1;
    bar.red.and.pred %p2, 0, %p1;
    bar.red.or.pred %p3, 0, !%p1;
    setp.gt.u32 %p4, %r5, 1000;
    bar.red.popc.u32 %r8, 0, %p4;
    bar.sync 0;
    bar.red.or.pred %p5, 0, %p4;
    selp.u32 %r9, 1, 0, %p2; selp.u32 %r10, 1, 0, %p3; selp.u32 %r11, 1, 0, %p5;
    mov.u32 %r12, 0; mov.u32 %r13, 0;
LOOP:
    shr.u32 %r14, %r5, %r12; and.b32 %r14, %r14, 1;
    setp.ne.u32 %p6, %r14, 0;
    bar.red.popc.u32 %r15, 0, %p6;
    mul.lo.s32 %r13, %r13, 3; add.s32 %r13, %r13, %r15;
    add.s32 %r12, %r12, 1;
    setp.lt.u32 %p6, %r12, 5;
    @%p6 bra LOOP;
    mul.wide.u32 %rd5, %r4, 32; add.s64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r7, %r9, %r10, %r8};
    st.global.v4.u32 [%rd6+16], {%r11, %r13, %r4, %r5};
DONE:
    ret;
}

// Warp 0 counts at a `bar.red` while the other warps wait at a plain `bar.sync` of the same
// barrier (another instruction); then every thread counts again.
.visible .entry parted(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    setp.ne.u32 %p1, %r2, 0;
    mov.u32 %r3, 7;
    setp.lt.u32 %p2, %r1, 32;
    @%p2 bra COUNT;
    bar.sync 0;
    bra AFTER;
COUNT:
    bar.red.popc.u32 %r3, 0, %p1;
AFTER:
    bar.red.popc.u32 %r4, 0, %p1;
    mad.lo.s32 %r5, %r3, 1000, %r4;
    st.global.u32 [%rd5], %r5;
    ret;
}

// The count picks where each thread stores: past the output when it is above the threshold.
.visible .entry store_at_count(.param .u64 xs, .param .u64 out, .param .u32 limit)
{
    .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out]; ld.param.u32 %r9, [limit];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    setp.ne.u32 %p1, %r5, 0;
    bar.red.popc.u32 %r6, 0, %p1;
    setp.gt.u32 %p2, %r6, %r9;
    selp.u32 %r7, 100000, 0, %p2;
    add.s32 %r8, %r4, %r7;
    mul.wide.u32 %rd5, %r8, 4; add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r6;
    ret;
}

// A count beside a shuffle.
.visible .entry with_shuffle(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 3;
    bar.red.popc.u32 %r2, 0, %p1;
    shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
    mul.wide.u32 %rd1, %r1, 4; add.s64 %rd3, %rd2, %rd1;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

/// `kernel` run on `xs` interpreted and compiled: both outputs of `out_words` words.
fn both(
    kernel: &str,
    xs: &[u32],
    out_words: usize,
    shape: (u32, u32),
    scalars: &[u32],
) -> [Vec<u32>; 2] {
    common::interpreted_and_compiled(KERNELS, kernel, xs, out_words, shape, scalars)
}

#[test]
fn counts_ands_and_ors_match_the_interpreter() {
    let (grid, block) = (6u32, 96u32);
    let xs: Vec<u32> = (0..grid * block)
        .map(|i| match (i / block, i % block) {
            // Block 0: every word odd and large.
            (0, t) => 2 * t + 1001,
            // Block 1: a third of the threads leave, a whole warp among them.
            (1, t) if t >= 64 || t % 5 == 2 => 0xdead,
            // Block 2: every thread leaves.
            (2, _) => 0xdead,
            // Block 3: every word even.
            (3, t) => 2 * t,
            (_, t) => t.wrapping_mul(2_654_435_761) >> 20,
        })
        .collect();
    let [interpreted, compiled] = both("votes", &xs, OUT * xs.len(), (grid, block), &[]);
    assert_eq!(interpreted, compiled);
    // Block 0: 96 odd words, all of them above 1000.
    assert_eq!(&compiled[..6], &[96, 1, 0, 96, 1, compiled[5]]);
    // Block 1: the threads that stay count their odd words.
    let stayed = xs[96..192].iter().filter(|&&x| x != 0xdead);
    let odd = stayed.filter(|&&x| x % 2 == 1).count() as u32;
    assert_eq!((compiled[OUT * 96], compiled[OUT * 96 + 6]), (odd, 96));
}

#[test]
fn warps_at_a_plain_barrier_of_the_same_barrier_add_nothing() {
    let xs: Vec<u32> = (0..128).map(|i| u32::from(i % 3 != 0)).collect();
    let [interpreted, compiled] = both("parted", &xs, 128, (1, 128), &[]);
    assert_eq!(interpreted, compiled);
    let warp0 = (0..32).filter(|i| i % 3 != 0).count() as u32;
    let all = (0..128).filter(|i| i % 3 != 0).count() as u32;
    assert_eq!(compiled[0], warp0 * 1000 + all);
    assert_eq!(compiled[64], 7 * 1000 + all);
}

#[test]
fn a_fault_after_a_count_is_the_interpreters_report() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("store_at_count").unwrap();
    let compiled = compile(&setup.program, "store_at_count", true);
    let (grid, block) = (4u32, 64u32);
    // Block 2 has more ones than the limit: its threads store past the output.
    let xs: Vec<u32> = (0..grid * block)
        .map(|i| u32::from(i / block == 2 || i % 4 == 0))
        .collect();
    let cfg = config(grid, block, 2);
    let x = setup.memory.alloc(4 * xs.len() as u64, 256).unwrap();
    setup.memory.write(x, &common::le_bytes(&xs)).unwrap();
    let out = setup.memory.alloc(4 * xs.len() as u64, 256).unwrap();
    let mut p = Vec::new();
    p.extend(x.to_le_bytes());
    p.extend(out.to_le_bytes());
    p.extend(32u32.to_le_bytes());
    let interpreted = setup.program.launch(&handle, &cfg, &p).unwrap_err();
    let faulted = compiled
        .launch(&cfg, &p, &LaunchHooks::default())
        .unwrap_err();
    assert_eq!(interpreted.to_string(), faulted.to_string());
    // Under the limit every block stores its count.
    let [interpreted, compiled] = both("store_at_count", &xs, xs.len(), (grid, block), &[64]);
    assert_eq!(interpreted, compiled);
    assert_eq!(compiled[0], 16);
    assert_eq!(compiled[2 * 64], 64);
}

#[test]
fn a_count_beside_a_warp_collective_matches_the_interpreter() {
    // Counted in the block's barrier table (`codegen/named_barrier.rs`; more in
    // tests/named_barriers.rs).
    let [interpreted, compiled] = both("with_shuffle", &[0; 64], 64, (2, 64), &[]);
    assert_eq!(interpreted, compiled);
    assert_eq!(compiled[0], 63);
}
