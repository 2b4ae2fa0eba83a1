//! Integer atomics on shared memory, which compiled code runs as plain loads and stores (a
//! block's threads run one after another on one worker), against the interpreter: every
//! inline operation at 32 and 64 bits, each word updated by one instruction of every thread of
//! a one-warp block, so the old value each thread gets is fixed by lane order, as the final
//! values are.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, HEADER};

/// Operations per width: add, and, or, xor, exch, cas, min and max signed and unsigned.
const OPS: usize = 10;

/// Each thread: x = tid × 0x9e3779b9 (and its 64-bit widening shifted), every operation once
/// on its own shared word, the old values to `olds[thread]`; thread 0 then writes the final
/// shared words to `finals[block]`.
fn kernel() -> String {
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
            "atom.shared.{op} %r8, [w32+{}], {operands};\nst.global.u32 [%rd4+{}], %r8;\n",
            4 * k,
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
            "atom.shared.{op} %rd9, [w64+{}], {operands};\nst.global.u64 [%rd4+{}], %rd9;\n",
            8 * k,
            8 * (OPS + k)
        );
    }
    let mut finals = String::new();
    for k in 0..OPS {
        finals += &format!(
            "ld.shared.u32 %r8, [w32+{}]; st.global.u32 [%rd11+{}], %r8;\n",
            4 * k,
            4 * k
        );
        finals += &format!(
            "ld.shared.u64 %rd9, [w64+{}]; st.global.u64 [%rd11+{}], %rd9;\n",
            8 * k,
            4 * OPS + 8 * k
        );
    }
    format!(
        r#"{HEADER}
.visible .entry shared_atomics(.param .u64 olds, .param .u64 finals)
{{
    .shared .align 4 .b32 w32[{OPS}];
    .shared .align 8 .b64 w64[{OPS}];
    .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [olds]; ld.param.u64 %rd2, [finals];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, {row}; add.s64 %rd4, %rd1, %rd3;
    mul.lo.u32 %r5, %r1, -1640531527;
    shr.u32 %r6, %r1, 1; add.u32 %r7, %r6, 1;
    mul.wide.u32 %rd5, %r5, 3; shl.b64 %rd6, %rd5, 29; xor.b64 %rd6, %rd6, %rd5;
    cvt.u64.u32 %rd7, %r6; cvt.u64.u32 %rd8, %r7;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra READY;
    st.shared.u32 [w32+4], -1; st.shared.u32 [w32+28], -2147483648;
    st.shared.u32 [w32+32], -1; st.shared.u64 [w64+8], -1;
    st.shared.u64 [w64+56], -9223372036854775808; st.shared.u64 [w64+64], -1;
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
    )
}

#[test]
fn shared_atomics_give_the_interpreters_old_and_final_values() {
    let (memory, program) = load(&kernel());
    let handle = program.kernel("shared_atomics").expect("the kernel exists");
    // One warp per block: the interpreter steps a warp's lanes in order, an instruction at a
    // time; the order in which it takes a block's warps is its own.
    let (blocks, threads) = (3u32, 32u32);
    let old_words = (blocks * threads) as usize * 4 * OPS;
    let final_words = blocks as usize * 3 * OPS;
    let run = |compiled: Option<bool>| {
        let olds = memory.alloc(4 * old_words as u64, 256).unwrap();
        let finals = memory.alloc(4 * final_words as u64, 256).unwrap();
        let mut params = olds.to_le_bytes().to_vec();
        params.extend(finals.to_le_bytes());
        let cfg = config(blocks, threads, 2);
        match compiled {
            Some(checks) => {
                let kernel = compile(&program, "shared_atomics", checks);
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
        assert!(run(Some(checks)) == reference, "checks {checks}");
    }
}
