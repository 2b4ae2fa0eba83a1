//! Volatile and memory-ordered accesses outside cooperative kernels: global ones compile (a
//! decoupled look-back's flags, `nanosleep` in its wait), and a block whose state repeats is
//! judged to spin only when every worker's block does (it may wait for one that runs beside
//! it); warp-synchronous code through `volatile` shared memory stays the interpreter's (its
//! lanes must run in lockstep), and a generic one that reaches shared memory sends its block
//! to the interpreter. (The `%lanemask_*` registers: `runtime_masks.rs`.)

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::LaunchHooks;
use common::{config, Setup, HEADER};

/// Block `b`'s thread 0 waits (a volatile spin with `nanosleep`) for block `b - 1`'s flag,
/// adds `in[b]` to its prefix and publishes its own prefix and flag: `out[0..n]` are the
/// inclusive prefix sums of `in`, `out[n..2n]` the flags. Only correct when every block it
/// waits for gets to run.
const LOOKBACK: &str = r"
.visible .entry lookback(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %nctaid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r2, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r4, [%rd4];
    mov.u32 %r5, 0;
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra PUBLISH;
    add.u32 %r6, %r3, %r2; sub.u32 %r6, %r6, 1;
    mul.wide.u32 %rd5, %r6, 4; add.s64 %rd6, %rd2, %rd5;
WAIT:
    ld.volatile.global.u32 %r7, [%rd6];
    setp.ne.u32 %p3, %r7, 0;
    @%p3 bra READY;
    nanosleep.u32 100;
    bra WAIT;
READY:
    sub.u32 %r8, %r2, 1; mul.wide.u32 %rd7, %r8, 4; add.s64 %rd8, %rd2, %rd7;
    ld.volatile.global.u32 %r5, [%rd8];
PUBLISH:
    add.u32 %r9, %r5, %r4;
    add.s64 %rd9, %rd2, %rd3;
    st.volatile.global.u32 [%rd9], %r9;
    membar.gl;
    add.u32 %r10, %r3, %r2; mul.wide.u32 %rd10, %r10, 4; add.s64 %rd11, %rd2, %rd10;
    st.volatile.global.u32 [%rd11], 1;
DONE:
    ret;
}
";

/// The last warp of a block reduction, warp-synchronous through volatile memory (no
/// `__syncwarp`): `s[t] += s[t + 32]`, then 16, 8, 4, 2, 1, each a volatile load pair and store,
/// lanes in lockstep; `out[block]` = `s[0]`. With its lanes one after another the sum differs.
/// `SPACE` is `.shared` (the address of the shared array) or generic (`cvta` of it), `ATOMIC`
/// an optional global atomic before it.
fn warp_synchronous(space: &str, atomic: &str) -> String {
    let (address, access) = if space == "shared" {
        ("mov.u32 %r9, s; cvt.u64.u32 %rd5, %r9;", "shared.")
    } else {
        ("mov.u64 %rd4, s; cvta.shared.u64 %rd5, %rd4;", "")
    };
    format!(
        r"
.visible .entry reduce(.param .u64 in, .param .u64 out)
{{
    .shared .align 4 .b32 s[64];
    .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 64, %r1;
    mul.wide.u32 %rd3, %r3, 4; add.s64 %rd3, %rd1, %rd3;
    ld.global.u32 %r4, [%rd3];
    {address}
    mul.wide.u32 %rd6, %r1, 4; add.s64 %rd7, %rd5, %rd6;
    st.volatile.{access}u32 [%rd7], %r4;
    {atomic}
    bar.sync 0;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra DONE;
    mov.u32 %r5, 32;
STEP:
    mul.wide.u32 %rd8, %r5, 4; add.s64 %rd9, %rd7, %rd8;
    ld.volatile.{access}u32 %r6, [%rd7];
    ld.volatile.{access}u32 %r7, [%rd9];
    add.u32 %r6, %r6, %r7;
    st.volatile.{access}u32 [%rd7], %r6;
    shr.u32 %r5, %r5, 1;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra STEP;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra DONE;
    ld.volatile.{access}u32 %r8, [%rd5];
    mul.wide.u32 %rd10, %r2, 4; add.s64 %rd11, %rd2, %rd10;
    st.global.u32 [%rd11], %r8;
DONE:
    ret;
}}
"
    )
}

/// A hand-written barrier of the whole grid: each block's thread 0 counts itself in
/// (`out[0]`; the last block after a while of work of its own), waits (a volatile spin) until every block has, and writes the count it saw to
/// `out[1 + block]`. It passes only when every block runs at once.
const GRID_BARRIER: &str = r"
.visible .entry grid_barrier(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %nctaid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    sub.u32 %r6, %r3, 1;
    setp.ne.u32 %p1, %r2, %r6;
    mov.u32 %r7, 0;
    @%p1 bra ARRIVE;
BUSY:
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p2, %r7, 4000000;
    @%p2 bra BUSY;
ARRIVE:
    atom.global.add.u32 %r4, [%rd1], 1;
WAIT:
    ld.volatile.global.u32 %r5, [%rd1];
    setp.lt.u32 %p2, %r5, %r3;
    @%p2 bra WAIT;
    mul.wide.u32 %rd2, %r2, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+4], %r5;
DONE:
    ret;
}
";

const COUNT_ATOMIC: &str = "atom.global.add.u32 %r10, [%rd2+1024], 1;";

/// Runs `kernel` over `input` with a zeroed output of `out_words` words, compiled (by
/// `compiled`) or interpreted, on `threads` host threads; the output's words.
fn run(
    setup: &Setup,
    kernel: &str,
    compiled: Option<&CompiledKernel>,
    (grid, block, threads): (u32, u32, usize),
    input: &[u32],
    out_words: usize,
) -> Vec<u32> {
    let memory = &setup.memory;
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let x = memory.alloc(bytes.len().max(4) as u64, 256).unwrap();
    memory.write(x, &bytes).unwrap();
    let out = memory.alloc(out_words as u64 * 4, 256).unwrap();
    memory.write(out, &vec![0; out_words * 4]).unwrap();
    let params: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
    let cfg = config(grid, block, threads);
    match compiled {
        Some(k) => k.launch(&cfg, &params, &LaunchHooks::default()).map(|_| ()),
        None => {
            let handle = setup.program.kernel(kernel).unwrap();
            setup.program.launch(&handle, &cfg, &params).map(|_| ())
        }
    }
    .unwrap();
    common::read_words(memory, out, out_words)
}

#[test]
fn a_decoupled_look_back_over_volatile_global_flags_runs_compiled_in_order() {
    let setup = Setup::of(&format!("{HEADER}{LOOKBACK}"));
    let compiled = common::compile(&setup.program, "lookback", true);
    let blocks = 200u32;
    let input: Vec<u32> = (0..blocks).map(|b| b * 7 + 3).collect();
    let mut expected: Vec<u32> = input
        .iter()
        .scan(0u32, |sum, &x| {
            *sum += x;
            Some(*sum)
        })
        .collect();
    expected.extend(std::iter::repeat_n(1, blocks as usize));
    let shape = (blocks, 64, 2);
    let n = 2 * blocks as usize;
    assert_eq!(run(&setup, "lookback", None, shape, &input, n), expected);
    // Two host threads asked for: the compiled launch still runs its blocks in order.
    assert_eq!(
        run(&setup, "lookback", Some(&compiled), shape, &input, n),
        expected
    );
}

#[test]
fn blocks_waiting_for_each_other_run_at_once() {
    let setup = Setup::of(&format!("{HEADER}{GRID_BARRIER}"));
    let compiled = common::compile(&setup.program, "grid_barrier", true);
    // As many blocks as host threads: all wait at once, none judged to spin (a block judged
    // to spin would go to the interpreter, whose run of it counts it in again).
    for blocks in [2u32, 3] {
        let expected = vec![blocks; blocks as usize + 1];
        for _ in 0..3 {
            let got = run(
                &setup,
                "grid_barrier",
                Some(&compiled),
                (blocks, 32, blocks as usize),
                &[],
                blocks as usize + 1,
            );
            assert_eq!(got, expected);
        }
    }
}

fn refusal(source: &str) -> Option<String> {
    let setup = Setup::of(&format!("{HEADER}{source}"));
    let handle = setup.program.kernel("reduce").unwrap();
    chevron_cpu_jit::assess(&setup.program, &handle).refusal
}

#[test]
fn warp_synchronous_volatile_shared_code_stays_interpreted() {
    let why = refusal(&warp_synchronous("shared", "")).expect("refused");
    assert!(why.contains("outside global memory"), "{why}");
    let why = refusal(&warp_synchronous("generic", COUNT_ATOMIC)).expect("refused");
    assert!(
        why.contains("generic load or store in a kernel with atomics"),
        "{why}"
    );
}

#[test]
fn a_generic_volatile_access_reaching_shared_memory_hands_its_block_to_the_interpreter() {
    let source = format!("{HEADER}{}", warp_synchronous("generic", ""));
    assert_eq!(refusal(&warp_synchronous("generic", "")), None);
    let setup = Setup::of(&source);
    let compiled = common::compile(&setup.program, "reduce", true);
    let input: Vec<u32> = (0..4 * 64).map(|i| i * 3 + 1).collect();
    let interpreted = run(&setup, "reduce", None, (4, 64, 1), &input, 4);
    // The lanes in lockstep: each block's sum of its first 32 values plus the second 32.
    let sums: Vec<u32> = input.chunks(64).map(|c| c.iter().sum()).collect();
    assert_eq!(interpreted, sums);
    assert_eq!(
        run(&setup, "reduce", Some(&compiled), (4, 64, 2), &input, 4),
        interpreted
    );
}
