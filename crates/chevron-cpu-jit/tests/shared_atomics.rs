//! Integer atomics, on shared memory (which compiled code runs as plain loads and stores: a
//! block's threads run one after another on one worker) and on global memory, four threads at
//! a time (one after another in the group), against the interpreter: every
//! inline operation at 32 and 64 bits, each word updated by one instruction of every thread of
//! a one-warp block, so the old value each thread gets is fixed by lane order, as the final
//! values are.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, HEADER};

/// Operations per width: add, and, or, xor, exch, cas, min and max signed and unsigned.
const OPS: usize = 10;

/// Each thread: x = tid × 0x9e3779b9 (and its 64-bit widening shifted), every operation once
/// on its own word of `space` (`shared`, or `global`: the block's part of `scratch`), the old
/// values to `olds[thread]`; thread 0 then writes the final words to `finals[block]`.
fn kernel(space: &str) -> String {
    let w32 = |k: usize| match space {
        "shared" => format!("w32+{}", 4 * k),
        _ => format!("%rd12+{}", 4 * k),
    };
    let w64 = |k: usize| match space {
        "shared" => format!("w64+{}", 8 * k),
        _ => format!("%rd12+{}", 4 * OPS + 8 * k),
    };
    let mut body = String::new();
    let ops32 = [
        "add.u32", "and.b32", "or.b32", "xor.b32", "exch.b32", "cas.b32", "min.s32", "max.s32",
        "min.u32", "max.u32",
    ];
    for (k, op) in ops32.iter().enumerate() {
        let operands = if op.starts_with("cas") {
            "%r6, %r7"
        } else {
            "%r5"
        };
        body += &format!(
            "atom.{space}.{op} %r8, [{}], {operands};\nst.global.u32 [%rd4+{}], %r8;\n",
            w32(k),
            8 * k
        );
    }
    let ops64 = [
        "add.u64", "and.b64", "or.b64", "xor.b64", "exch.b64", "cas.b64", "min.s64", "max.s64",
        "min.u64", "max.u64",
    ];
    for (k, op) in ops64.iter().enumerate() {
        let operands = if op.starts_with("cas") {
            "%rd7, %rd8"
        } else {
            "%rd6"
        };
        body += &format!(
            "atom.{space}.{op} %rd9, [{}], {operands};\nst.global.u64 [%rd4+{}], %rd9;\n",
            w64(k),
            8 * (OPS + k)
        );
    }
    let mut finals = String::new();
    for k in 0..OPS {
        finals += &format!(
            "ld.{space}.u32 %r8, [{}]; st.global.u32 [%rd11+{}], %r8;\n",
            w32(k),
            4 * k
        );
        finals += &format!(
            "ld.{space}.u64 %rd9, [{}]; st.global.u64 [%rd11+{}], %rd9;\n",
            w64(k),
            4 * OPS + 8 * k
        );
    }
    format!(
        r#"{HEADER}
.visible .entry {space}_atomics(.param .u64 olds, .param .u64 finals, .param .u64 scratch)
{{
    .shared .align 4 .b32 w32[{OPS}];
    .shared .align 8 .b64 w64[{OPS}];
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<14>;
    ld.param.u64 %rd1, [olds]; ld.param.u64 %rd2, [finals]; ld.param.u64 %rd12, [scratch];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, {row}; add.s64 %rd4, %rd1, %rd3;
    mul.wide.u32 %rd10, %r2, {final_row}; add.s64 %rd12, %rd12, %rd10;
    mul.lo.u32 %r5, %r1, -1640531527;
    shr.u32 %r6, %r1, 1; add.u32 %r7, %r6, 1;
    mul.wide.u32 %rd5, %r5, 3; shl.b64 %rd6, %rd5, 29; xor.b64 %rd6, %rd6, %rd5;
    cvt.u64.u32 %rd7, %r6; cvt.u64.u32 %rd8, %r7;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra READY;
    st.{space}.u32 [{w1}], -1; st.{space}.u32 [{w7}], -2147483648;
    st.{space}.u32 [{w8}], -1; st.{space}.u64 [{d1}], -1;
    st.{space}.u64 [{d7}], -9223372036854775808; st.{space}.u64 [{d8}], -1;
READY:
    bar.sync 0;
    {body}
    bar.sync 0;
    @%p1 bra DONE;
    mul.wide.u32 %rd10, %r2, {final_row}; add.s64 %rd11, %rd2, %rd10;
    {finals}
DONE:
    ret;
}}
"#,
        row = 16 * OPS,
        final_row = 12 * OPS,
        w1 = w32(1),
        w7 = w32(7),
        w8 = w32(8),
        d1 = w64(1),
        d7 = w64(7),
        d8 = w64(8),
    )
}

/// Runs `{space}_atomics` interpreted and compiled (checks on and off) and compares the old
/// and final values.
fn atomics_match(space: &str) {
    let (memory, program) = load(&kernel(space));
    let name = format!("{space}_atomics");
    let handle = program.kernel(&name).expect("the kernel exists");
    // One warp per block: the interpreter steps a warp's lanes in order, an instruction at a
    // time; the order in which it takes a block's warps is its own.
    let (blocks, threads) = (3u32, 32u32);
    let old_words = (blocks * threads) as usize * 4 * OPS;
    let final_words = blocks as usize * 3 * OPS;
    let run = |compiled: Option<(bool, u32)>| {
        let olds = memory.alloc(4 * old_words as u64, 256).unwrap();
        let finals = memory.alloc(4 * final_words as u64, 256).unwrap();
        let scratch = memory.alloc(4 * final_words as u64, 256).unwrap();
        memory.write(scratch, &vec![0; 4 * final_words]).unwrap();
        let mut params = olds.to_le_bytes().to_vec();
        params.extend(finals.to_le_bytes());
        params.extend(scratch.to_le_bytes());
        let cfg = config(blocks, threads, 2);
        match compiled {
            Some((checks, group_threads)) => {
                let kernel = if checks {
                    common::compile_grouped(&program, &name, group_threads)
                } else {
                    compile(&program, &name, checks)
                };
                // In groups of threads, each thread's atomic in turn (`vector/scatter.rs`).
                assert_eq!(kernel.vector(), Ok(()));
                kernel
                    .launch(&cfg, &params, &LaunchHooks::default())
                    .unwrap();
            }
            None => {
                program.launch(&handle, &cfg, &params).unwrap();
            }
        }
        (
            read_words(&memory, olds, old_words),
            read_words(&memory, finals, final_words),
        )
    };
    let reference = run(None);
    // The operations did something: the add's final value is the sum of the operands.
    let sum = (0..threads).fold(0u32, |s, t| s.wrapping_add(t.wrapping_mul(0x9e37_79b9)));
    assert_eq!(reference.1[0], sum);
    // The compare-and-swap chain: each even thread finds its half and bumps it.
    assert_eq!(reference.1[5], threads / 2);
    for checks in [true, false] {
        assert!(
            run(Some((checks, 4))) == reference,
            "{space}, checks {checks}"
        );
    }
    for group_threads in [8, 16, 32] {
        let got = run(Some((true, group_threads)));
        assert!(got == reference, "{space}, groups of {group_threads}");
    }
}

#[test]
fn shared_atomics_give_the_interpreters_old_and_final_values() {
    atomics_match("shared");
}

#[test]
fn global_atomics_give_the_interpreters_old_and_final_values() {
    atomics_match("global");
}
