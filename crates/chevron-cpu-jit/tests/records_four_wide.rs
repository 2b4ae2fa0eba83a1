//! Four-word records (`src/vector/records.rs`): each thread loads the four words of its own
//! 16-byte record from global memory (out of order, with arithmetic between), stores them to
//! shared memory (out of order), loads them back and stores four words of its record of the
//! output, in groups of 4, 8, 16 and 32 threads against the interpreter (fails when a record's
//! words are transposed wrongly); a record whose last word lies past the end of its allocation
//! faults as interpreted, word for word (fails when the check misses the last word); and a
//! store between the loads keeps them apart, as interpreted.

mod common;

use common::{Setup, HEADER};

const KERNELS: &str = r#"
.visible .entry records(.param .u64 x, .param .u64 out, .param .u32 shift)
{
    .shared .align 16 .b8 buf[1024];
    .reg .pred %p<4>; .reg .b32 %r<48>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [shift];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 16; add.s64 %rd6, %rd1, %rd3;
    ld.global.u32 %r30, [%rd6+4];
    ld.global.u32 %r31, [%rd6];
    add.s32 %r32, %r30, %r31;
    ld.global.u32 %r33, [%rd6+8];
    shl.b32 %r34, %r33, %r1;
    ld.global.u32 %r35, [%rd6+12];
    xor.b32 %r36, %r35, %r32;
    mov.u32 %r6, buf; shl.b32 %r7, %r2, 4; add.s32 %r7, %r6, %r7;
    st.shared.u32 [%r7+8], %r34;
    st.shared.u32 [%r7], %r32;
    add.s32 %r37, %r36, 3;
    st.shared.u32 [%r7+12], %r37;
    st.shared.u32 [%r7+4], %r31;
    bar.sync 0;
    ld.shared.u32 %r40, [%r7+12];
    ld.shared.u32 %r41, [%r7];
    ld.shared.u32 %r42, [%r7+4];
    ld.shared.u32 %r43, [%r7+8];
    add.s64 %rd9, %rd2, %rd3;
    sub.s32 %r44, %r40, %r41;
    st.global.u32 [%rd9+4], %r44;
    st.global.u32 [%rd9], %r42;
    st.global.u32 [%rd9+12], %r43;
    add.s32 %r45, %r43, %r2;
    st.global.u32 [%rd9+8], %r45;
    ret;
}

// The same loads with a store to the output between the second and the third.
.visible .entry apart(.param .u64 x, .param .u64 out, .param .u32 shift)
{
    .reg .b32 %r<48>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 16; add.s64 %rd6, %rd1, %rd3; add.s64 %rd9, %rd2, %rd3;
    ld.global.u32 %r30, [%rd6+4];
    ld.global.u32 %r31, [%rd6];
    st.global.u32 [%rd9], %r31;
    ld.global.u32 %r33, [%rd6+8];
    ld.global.u32 %r35, [%rd6+12];
    add.s32 %r36, %r35, %r33; add.s32 %r36, %r36, %r30;
    st.global.u32 [%rd9+4], %r36;
    ret;
}
"#;

/// `name` on 3 blocks of 64 threads (one host thread) over an input of `words` words,
/// interpreted and compiled in groups of `group_threads`: the output's words or the fault
/// (addresses left out).
fn run(s: &Setup, name: &str, group_threads: u32, words: u32) -> [Result<Vec<u32>, String>; 2] {
    let kernel = common::compile_grouped(&s.program, name, group_threads);
    assert_eq!(kernel.vector(), Ok(()), "{name} runs in groups");
    let handle = s.program.kernel(name).unwrap();
    let cfg = common::config(3, 64, 1);
    let input: Vec<u8> = (0..words)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 3).to_le_bytes())
        .collect();
    let launch = |compiled| s.try_run_in_out((&handle, compiled), &cfg, &input, 192 * 16, &[3]);
    [launch(None), launch(Some(&kernel))]
}

#[test]
fn records_load_and_store_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        for name in ["records", "apart"] {
            let [want, got] = run(&s, name, group_threads, 192 * 4);
            assert!(want.is_ok(), "{want:?}");
            assert_eq!(got, want, "{name}, groups of {group_threads}");
        }
    }
}

#[test]
fn a_record_past_the_end_faults_as_interpreted() {
    let s = Setup::of(&format!("{HEADER}{KERNELS}"));
    for group_threads in common::GROUPS {
        // The last thread's last word is past the end of the input.
        let [want, got] = run(&s, "records", group_threads, 192 * 4 - 1);
        assert!(
            want.as_ref()
                .is_err_and(|f| f.contains("thread (63, 0, 0)")),
            "{want:?}"
        );
        assert_eq!(got, want, "groups of {group_threads}");
    }
}
