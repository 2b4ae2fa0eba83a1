//! Named barriers (`bar.sync id, count`, `barrier.sync`, `bar.arrive`) and `bar.red` beside
//! warp collectives, compiled against the interpreter (`codegen/named_barrier.rs`, counted in
//! the block's barrier table): a producer/consumer ring, barriers picked by a register, a
//! barrier without a count that completes when threads exit, `bar.red` on named barriers of a
//! count, several blocks on one worker;
//! a deadlock and a barrier id out of range give the interpreter's reports word for word.

mod common;

use common::{compile, config, Setup, HEADER};

const KERNELS: &str = r#"
// Warps 0-1 produce into a shared ring, warps 2-3 consume it, five rounds: the ring is full
// at barrier 1 (producers arrive, consumers wait), empty at barrier 2 (the other way round).
.visible .entry ring(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
    .shared .align 4 .b32 slots[64];
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r14, %ntid.x;
    mad.lo.s32 %r15, %r2, %r14, %r1;
    mul.wide.u32 %rd3, %r15, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r3, [%rd4];
    mov.u32 %r4, 0; mov.u32 %r5, 0;
    mov.u32 %r7, slots;
    setp.ge.u32 %p1, %r1, 64;
    @%p1 bra CONSUMER;
    shl.b32 %r6, %r1, 2; add.u32 %r8, %r7, %r6;
PRODUCE:
    mad.lo.s32 %r9, %r3, %r4, %r2;
    st.shared.u32 [%r8], %r9;
    bar.arrive 1, 128;
    bar.sync 2, 128;
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 5;
    @%p2 bra PRODUCE;
    add.s32 %r5, %r3, 100;
    bra DONE;
CONSUMER:
    sub.s32 %r10, %r1, 63; and.b32 %r10, %r10, 63; shl.b32 %r10, %r10, 2;
    add.u32 %r12, %r7, %r10;
CONSUME:
    bar.sync 1, 128;
    ld.shared.u32 %r13, [%r12];
    mul.lo.s32 %r5, %r5, 31; add.s32 %r5, %r5, %r13;
    bar.arrive 2, 128;
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 5;
    @%p2 bra CONSUME;
DONE:
    st.global.u32 [%rd5], %r5;
    ret;
}

// Each half of the block meets at its own barrier (3 or 4, from a register) of 64 threads,
// then the whole block at barrier 0; warp 3 leaves, and the rest meet twice at barrier 5
// without a count, which completes once warp 3 has exited.
.visible .entry pairs(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    .shared .align 4 .b32 sh[128];
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
    shl.b32 %r20, %r2, 7; add.s32 %r20, %r20, %r1;
    mul.wide.u32 %rd3, %r20, 4; add.s64 %rd4, %rd1, %rd3;
    mul.wide.u32 %rd6, %r20, 8; add.s64 %rd5, %rd2, %rd6;
    ld.global.u32 %r3, [%rd4];
    mov.u32 %r7, sh; shl.b32 %r6, %r1, 2; add.u32 %r8, %r7, %r6;
    st.shared.u32 [%r8], %r3;
    shr.u32 %r9, %r1, 6; add.u32 %r10, %r9, 3;
    barrier.sync %r10, 64;
    xor.b32 %r11, %r1, 32; shl.b32 %r11, %r11, 2; add.u32 %r11, %r7, %r11;
    ld.shared.u32 %r12, [%r11];
    bar.sync 0;
    st.shared.u32 [%r8], %r12;
    bar.sync 0;
    xor.b32 %r13, %r1, 64; shl.b32 %r13, %r13, 2; add.u32 %r13, %r7, %r13;
    ld.shared.u32 %r14, [%r13];
    mad.lo.s32 %r15, %r12, 1000, %r14;
    st.global.u32 [%rd5], %r15;
    setp.ge.u32 %p1, %r1, 96;
    @%p1 bra DONE;
    bar.sync 5;
    st.shared.u32 [%r8], %r15;
    bar.sync 5;
    add.s32 %r16, %r1, 1; rem.u32 %r16, %r16, 96; shl.b32 %r16, %r16, 2;
    add.u32 %r16, %r7, %r16;
    ld.shared.u32 %r17, [%r16];
    st.global.u32 [%rd5+4], %r17;
DONE:
    ret;
}

// Warp 0 waits for 96 threads at barrier 1; warp 1 arrives there and leaves: 64 of 96.
.visible .entry stuck(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra WAIT;
    bar.arrive 1, 96;
    bra DONE;
WAIT:
    bar.sync 1, 96;
DONE:
    mul.wide.u32 %rd1, %r1, 4; add.s64 %rd3, %rd2, %rd1;
    st.global.u32 [%rd3], %r1;
    ret;
}

// The barrier id is the third parameter: 16 and up fault.
.visible .entry chosen(.param .u64 xs, .param .u64 out, .param .u32 id)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd2, [out]; ld.param.u32 %r2, [id];
    mov.u32 %r1, %tid.x;
    bar.sync %r2, 64;
    mul.wide.u32 %rd1, %r1, 4; add.s64 %rd3, %rd2, %rd1;
    st.global.u32 [%rd3], %r1;
    ret;
}

// `__syncthreads_count` in a loop beside a shuffle; warp 1 leaves first in odd blocks.
.visible .entry counted_shuffles(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r14, %ntid.x;
    mad.lo.s32 %r15, %r2, %r14, %r1;
    mul.wide.u32 %rd3, %r15, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r3, [%rd4];
    and.b32 %r4, %r2, 1; shr.u32 %r5, %r1, 5;
    setp.eq.u32 %p1, %r4, 1; setp.eq.u32 %p2, %r5, 1;
    and.pred %p1, %p1, %p2;
    @%p1 bra DONE;
    mov.u32 %r6, 0; mov.u32 %r7, 0;
LOOP:
    and.b32 %r8, %r3, 1; setp.ne.u32 %p3, %r8, 0;
    bar.red.popc.u32 %r9, 0, %p3;
    add.s32 %r10, %r9, %r1;
    shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;
    mad.lo.s32 %r7, %r7, 7, %r11;
    shr.u32 %r3, %r3, 1; add.s32 %r3, %r3, %r11;
    add.s32 %r6, %r6, 1;
    setp.lt.u32 %p3, %r6, 3;
    @%p3 bra LOOP;
    bar.red.and.pred %p3, 0, %p3;
    selp.u32 %r12, 1000000, 0, %p3;
    add.s32 %r7, %r7, %r12;
    st.global.u32 [%rd5], %r7;
DONE:
    ret;
}
// Each half of the block counts on its own barrier of 64 threads: the first half how many
// words are odd (`bar.red.popc` on barrier 2), the second whether all are (`.and` on 3).
.visible .entry half_votes(.param .u64 xs, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r5, [%rd4];
    and.b32 %r6, %r5, 1; setp.ne.u32 %p1, %r6, 0;
    setp.ge.u32 %p2, %r1, 64;
    @%p2 bra SECOND;
    bar.red.popc.u32 %r7, 2, 64, %p1;
    bra DONE;
SECOND:
    bar.red.and.pred %p3, 3, 64, %p1;
    selp.u32 %r7, 1000, 2000, %p3;
DONE:
    st.global.u32 [%rd5], %r7;
    ret;
}
"#;

/// `kernel` run on `xs` interpreted and compiled (two host threads): both outputs of
/// `out_words` words. No block of the compiled launch goes to the interpreter.
fn both(kernel: &str, xs: &[u32], out_words: usize, (grid, block): (u32, u32)) -> [Vec<u32>; 2] {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel(kernel).unwrap();
    let compiled = compile(&setup.program, kernel, true);
    let cfg = config(grid, block, 2);
    let input = common::le_bytes(xs);
    let run = |c| setup.run_in_out((&handle, c), &cfg, &input, 4 * out_words, &[]);
    let outputs = [run(None), run(Some(&compiled))];
    assert_eq!(
        compiled.blocks_interpreted(),
        0,
        "{kernel}: blocks interpreted"
    );
    outputs
}

/// Pseudo-random words.
fn words(n: u32) -> Vec<u32> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect()
}

#[test]
fn a_producer_consumer_ring_matches_the_interpreter() {
    let (grid, block) = (5u32, 128u32);
    let xs = words(grid * block);
    let [interpreted, compiled] = both("ring", &xs, xs.len(), (grid, block));
    assert_eq!(interpreted, compiled);
    // A producer stores its word plus 100; a consumer folds the five rounds of its slot.
    assert_eq!(compiled[3], xs[3] + 100);
    let (b, t) = (2u32, 70u32);
    let slot = (t - 63) % 64;
    let fold = (0..5u32).fold(0u32, |acc, round| {
        let produced = xs[(b * block + slot) as usize]
            .wrapping_mul(round)
            .wrapping_add(b);
        acc.wrapping_mul(31).wrapping_add(produced)
    });
    assert_eq!(compiled[(b * block + t) as usize], fold);
}

#[test]
fn barriers_from_registers_and_one_that_exits_complete_match_the_interpreter() {
    let (grid, block) = (3u32, 128u32);
    let xs = words(grid * block);
    let [interpreted, compiled] = both("pairs", &xs, 2 * xs.len(), (grid, block));
    assert_eq!(interpreted, compiled);
    // Thread 5 of block 1: its partner's word, then that of the thread 64 away's partner.
    let x = |t: u32| xs[(128 + t) as usize];
    let first = x(5 ^ 32).wrapping_mul(1000).wrapping_add(x(5 ^ 64 ^ 32));
    assert_eq!(compiled[2 * (128 + 5)], first);
    // Warp 3 left before barrier 5; thread 95 reads thread 0's value after it.
    let zero = x(32).wrapping_mul(1000).wrapping_add(x(64 ^ 32));
    assert_eq!(compiled[2 * (128 + 95) + 1], zero);
    assert_eq!(compiled[2 * (128 + 100) + 1], 0xeeee_eeee);
}

#[test]
fn a_count_never_reached_is_the_interpreters_deadlock() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("stuck").unwrap();
    let compiled = compile(&setup.program, "stuck", true);
    let cfg = config(2, 64, 2);
    let run = |c| setup.try_run_in_out((&handle, c), &cfg, &[0; 4], 4 * 64, &[]);
    let interpreted = run(None).unwrap_err();
    assert!(interpreted.contains("deadlock"), "{interpreted}");
    assert_eq!(run(Some(&compiled)).unwrap_err(), interpreted);
}

#[test]
fn a_barrier_id_out_of_range_is_the_interpreters_fault() {
    let setup = Setup::of(&format!("{HEADER}{KERNELS}"));
    let handle = setup.program.kernel("chosen").unwrap();
    let compiled = compile(&setup.program, "chosen", true);
    let cfg = config(2, 64, 2);
    let run = |c, id: u32| setup.try_run_in_out((&handle, c), &cfg, &[0; 4], 4 * 64, &[id]);
    let interpreted = run(None, 16).unwrap_err();
    assert!(interpreted.contains("barrier id 16"), "{interpreted}");
    assert_eq!(run(Some(&compiled), 16).unwrap_err(), interpreted);
    // Barrier 15 of 64 threads: every thread goes on, compiled.
    let before = compiled.blocks_interpreted();
    let done = run(Some(&compiled), 15).unwrap();
    assert_eq!(compiled.blocks_interpreted(), before);
    assert_eq!(done, run(None, 15).unwrap());
    assert_eq!(done[63], 63);
}

#[test]
fn counts_beside_a_shuffle_match_the_interpreter() {
    let (grid, block) = (4u32, 96u32);
    let xs = words(grid * block);
    let [interpreted, compiled] = both("counted_shuffles", &xs, xs.len(), (grid, block));
    assert_eq!(interpreted, compiled);
    // Warp 1 of an odd block left first: its words stay untouched.
    assert_eq!(interpreted[96 + 40], 0xeeee_eeee);
    assert_ne!(interpreted[40], 0xeeee_eeee);
}

#[test]
fn block_votes_on_named_barriers_match_the_interpreter() {
    let (grid, block) = (4u32, 128u32);
    // Block 1: every word odd; the others pseudo-random.
    let xs: Vec<u32> = words(grid * block)
        .into_iter()
        .enumerate()
        .map(|(i, x)| if i / 128 == 1 { 2 * x + 1 } else { x })
        .collect();
    let [interpreted, compiled] = both("half_votes", &xs, xs.len(), (grid, block));
    assert_eq!(interpreted, compiled);
    let odd = xs[..64].iter().filter(|&&x| x % 2 == 1).count() as u32;
    assert_eq!(compiled[5], odd);
    assert_eq!(compiled[128 + 100], 1000);
}
