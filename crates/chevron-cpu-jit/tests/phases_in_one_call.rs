//! The vector function goes on from a phase to the next in the same call when the block's
//! last group waits at a barrier (`src/vector/chain.rs`, `next_phase`), in groups of 4, 8, 16
//! and 32 threads against the interpreter: a loop of barriers whose every phase passes words
//! between threads through shared memory, for 0 to 6 turns, the block ending in a phase that
//! exits; every phase's groups are counted in the launch's tally (fails when the groups a call
//! runs again are not counted) and none goes to the scalar code.

mod common;

use common::{Setup, HEADER};

const KERNEL: &str = r#"
// out[t] = x[t] after k turns of: word t += word (t + 1) mod 64 + turn.
.visible .entry turns(.param .u64 x, .param .u64 out, .param .u32 k)
{
    .shared .align 4 .b32 words[64];
    .reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [k];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r6, [%rd4];
    mov.u32 %r7, words; shl.b32 %r8, %r2, 2; add.s32 %r8, %r7, %r8;
    add.s32 %r9, %r2, 1; and.b32 %r9, %r9, 63; shl.b32 %r9, %r9, 2; add.s32 %r9, %r7, %r9;
    st.shared.u32 [%r8], %r6;
    bar.sync 0;
    mov.u32 %r10, 0;
    setp.ge.u32 %p1, %r10, %r1;
    @%p1 bra DONE;
TURN:
    ld.shared.u32 %r11, [%r9];
    bar.sync 0;
    ld.shared.u32 %r12, [%r8];
    add.s32 %r12, %r12, %r11; add.s32 %r12, %r12, %r10;
    st.shared.u32 [%r8], %r12;
    bar.sync 0;
    add.s32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, %r1;
    @%p2 bra TURN;
DONE:
    ld.shared.u32 %r13, [%r8];
    add.s64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r13;
    ret;
}
"#;

#[test]
fn phases_that_follow_in_one_call_run_and_count_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = s.program.kernel("turns").unwrap();
    let cfg = common::config(3, 64, 2);
    let input: Vec<u8> = (0..192u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 9).to_le_bytes())
        .collect();
    for group_threads in common::GROUPS {
        let kernel = common::compile_grouped(&s.program, "turns", group_threads);
        assert_eq!(kernel.vector(), Ok(()), "turns runs in groups");
        let mut phases = 0;
        for k in 0..=6u32 {
            let run = |compiled| s.run_in_out((&handle, compiled), &cfg, &input, 4 * 192, &[k]);
            assert_eq!(
                run(Some(&kernel)),
                run(None),
                "groups of {group_threads}, {k} turns"
            );
            // The first barrier, two per turn, the end.
            phases += 2 + 2 * u64::from(k);
        }
        let groups = 3 * phases * 64 / u64::from(group_threads);
        assert_eq!(
            kernel.groups(),
            (groups, 0),
            "groups of {group_threads}: every phase's groups, none handed over"
        );
    }
}
