//! `shfl` in groups of a whole warp (`CompileOptions::group_threads` 32: the shuffle is a
//! permutation of the group's own vectors, `src/vector/permute.rs`) against the interpreter:
//! every mode with every lane delta and several clamp/segment operands as immediates (the
//! permutation chosen while compiling), every mode with operands from registers (through a
//! stack slot), and a warp with an exited lane (its group goes on one thread at a time and
//! the block to the interpreter).

mod common;

use std::fmt::Write;

use chevron_ptx::interp::LaunchConfig;
use common::{Setup, HEADER};

const MODES: [&str; 4] = ["up", "down", "bfly", "idx"];

/// The shuffles of the immediate kernel: (mode, lane operand, clamp operand).
fn immediates() -> Vec<(&'static str, u32, u32)> {
    let mut list = Vec::new();
    for mode in MODES {
        for b in 0..32 {
            list.push((mode, b, if mode == "up" { 0 } else { 0x1f }));
        }
        for b in [1, 2, 5, 7, 9, 16, 31] {
            for c in [0x181f, 0x1c07, 0x1f00, 0x1003] {
                list.push((mode, b, c));
            }
        }
    }
    list
}

/// Thread g: v = x[g]; each shuffle's result and predicate folded into two hashes, and into
/// v with g (so that each shuffle reads the one before, and the threads' values stay apart);
/// out[g], out[T + g] the hashes. Thread `quit` exits at once.
fn kernel() -> String {
    let mut text = String::from(
        ".visible .entry imm(.param .u64 x, .param .u64 out, .param .u32 quit)
{
    .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [quit];
    mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x;
    mad.lo.s32 %r6, %r4, %r5, %r3;
    setp.eq.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r6, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r7, [%rd4];
    mov.u32 %r20, 0; mov.u32 %r21, 0;
",
    );
    for (mode, b, c) in immediates() {
        writeln!(
            text,
            "    shfl.sync.{mode}.b32 %r10|%p2, %r7, {b}, {c}, -1;
    selp.u32 %r11, 1, 0, %p2;
    mad.lo.s32 %r20, %r20, 33, %r10; mad.lo.s32 %r21, %r21, 3, %r11;
    mad.lo.s32 %r7, %r7, 5, %r10; xor.b32 %r7, %r7, %r6;"
        )
        .unwrap();
    }
    text.push_str(
        "    mov.u32 %r8, %nctaid.x; mul.lo.s32 %r8, %r8, %r5;
    mul.wide.u32 %rd5, %r8, 4;
    add.s64 %rd6, %rd2, %rd3; st.global.u32 [%rd6], %r20;
    add.s64 %rd6, %rd6, %rd5; st.global.u32 [%rd6], %r21;
DONE:
    ret;
}

// The same through registers: out[k * T + g] = the k-th mode's result, out[4T + g] the
// predicates.
.visible .entry regs(.param .u64 x, .param .u64 out, .param .u32 b, .param .u32 c)
{
    .reg .pred %p<8>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [b]; ld.param.u32 %r2, [c];
    mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x;
    mad.lo.s32 %r6, %r4, %r5, %r3;
    mul.wide.u32 %rd3, %r6, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r7, [%rd4];
    shfl.sync.up.b32 %r10|%p2, %r7, %r1, %r2, -1;
    shfl.sync.down.b32 %r11|%p3, %r10, %r1, %r2, -1;
    shfl.sync.bfly.b32 %r12|%p4, %r7, %r1, %r2, -1;
    shfl.sync.idx.b32 %r13|%p5, %r11, %r1, %r2, -1;
    selp.u32 %r14, 1, 0, %p2; selp.u32 %r15, 2, 0, %p3;
    selp.u32 %r16, 4, 0, %p4; selp.u32 %r17, 8, 0, %p5;
    or.b32 %r14, %r14, %r15; or.b32 %r16, %r16, %r17; or.b32 %r14, %r14, %r16;
    mov.u32 %r8, %nctaid.x; mul.lo.s32 %r8, %r8, %r5;
    mul.wide.u32 %rd5, %r8, 4;
    add.s64 %rd6, %rd2, %rd3;
    st.global.u32 [%rd6], %r10; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r11; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r12; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r13; add.s64 %rd6, %rd6, %rd5;
    st.global.u32 [%rd6], %r14;
    ret;
}
",
    );
    text
}

/// Runs `name` interpreted and compiled in groups of a whole warp on 3 blocks of 64 threads
/// with `scalars` after the two pointers; both outputs (`outputs` words per thread).
fn both(s: &Setup, name: &str, scalars: &[u32], outputs: usize) -> [Vec<u32>; 2] {
    let kernel = common::compile_grouped(&s.program, name, 32);
    assert_eq!(kernel.vector(), Ok(()), "{name} runs in groups");
    assert_eq!(kernel.group_threads(), 32);
    let handle = s.program.kernel(name).unwrap();
    let (blocks, threads) = (3u32, 64u32);
    let n = (blocks * threads) as usize;
    let input: Vec<u8> = (0..n as u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ (i >> 3)).to_le_bytes())
        .collect();
    let cfg = LaunchConfig {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
        threads: 2,
    };
    let run = |use_compiled: bool| {
        let kernel = (&handle, use_compiled.then_some(&kernel));
        s.run_in_out(kernel, &cfg, &input, 4 * outputs * n, scalars)
    };
    [run(false), run(true)]
}

#[test]
fn immediate_shuffles_of_every_mode_and_delta_match() {
    let s = Setup::of(&format!("{HEADER}{}", kernel()));
    // No thread quits; then thread 70 (block 1's second warp goes one thread at a time and
    // its block to the interpreter).
    for quit in [u32::MAX, 70] {
        let [want, got] = both(&s, "imm", &[quit], 2);
        assert!(!want.contains(&0xeeee_eeee) || quit != u32::MAX);
        assert_eq!(got, want, "quit {quit}");
    }
}

#[test]
fn shuffles_through_registers_match() {
    let s = Setup::of(&format!("{HEADER}{}", kernel()));
    for (b, c) in [
        (0u32, 0x1fu32),
        (1, 0),
        (1, 0x1f),
        (5, 0x181f),
        (16, 0x1f),
        (31, 0x1c07),
        (3, 0x1f00),
        (2, 0x1f),
    ] {
        let [want, got] = both(&s, "regs", &[b, c], 5);
        assert!(!want.contains(&0xeeee_eeee));
        assert_eq!(got, want, "b {b} c {c:#x}");
    }
}
