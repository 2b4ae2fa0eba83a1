//! Groups that part at a branch over loads into registers live at its target
//! (`src/vector/masked.rs`, blended regions: nvcc's `mov %r, 0; @p bra L; ld.shared %r, [..];
//! L:` of a scan's `t >= offset ? totals[t - offset] : 0`), in groups of 4, 8, 16 and 32
//! threads against the interpreter: a Hillis-Steele scan whose steps part groups, and a step
//! with a bound from a parameter that parts them anywhere, writing a 32- and a 64-bit
//! register; threads that skip the loads have addresses below the shared memory, which must
//! be neither checked nor read (no group goes to the scalar code); a region whose second load
//! is refused by its check hands the group over at the branch with the registers as they
//! were there; and a thread that loads past the end faults as interpreted, word for word.

mod common;

use chevron_cpu_jit::CompiledKernel;
use common::{Setup, HEADER};

/// The scan's fixed steps (offsets 1 to 32 over 64 threads), then the parameter step.
fn kernels() -> String {
    let mut steps = String::new();
    for (k, offset) in [1, 2, 4, 8, 16, 32].iter().enumerate() {
        steps.push_str(&format!(
            "    setp.lt.u32 %p1, %r2, {offset};\n    mov.u32 %r10, 0;\n    @%p1 bra STEP{k};\n\
             \x20   ld.shared.u32 %r10, [%r8+-{bytes}];\nSTEP{k}:\n    bar.sync 0;\n\
             \x20   ld.shared.u32 %r11, [%r8];\n    add.s32 %r11, %r11, %r10;\n\
             \x20   st.shared.u32 [%r8], %r11;\n    bar.sync 0;\n",
            bytes = 4 * offset
        ));
    }
    format!(
        r#"{HEADER}
// out[t] = inclusive scan of x over the block, plus (t >= s ? totals[t] at t - back/4 : 7);
// out64[t] = t >= s ? that word times 8 : 2^32.
.visible .entry scan(.param .u64 x, .param .u64 out, .param .u32 s, .param .u32 back)
{{
    .shared .align 4 .b32 totals[64];
    .reg .pred %p<4>; .reg .b32 %r<32>; .reg .b64 %rd<32>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [s]; ld.param.u32 %r20, [back];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r6, [%rd4];
    mov.u32 %r7, totals; shl.b32 %r8, %r2, 2; add.s32 %r8, %r7, %r8;
    st.shared.u32 [%r8], %r6;
    bar.sync 0;
{steps}
    setp.lt.u32 %p2, %r2, %r1;
    sub.s32 %r22, %r8, %r20;
    mov.u32 %r23, 7;
    mov.u64 %rd20, 4294967296;
    @%p2 bra LAST;
    ld.shared.u32 %r23, [%r22];
    cvt.u64.u32 %rd20, %r23;
    shl.b64 %rd20, %rd20, 3;
LAST:
    ld.shared.u32 %r24, [%r8];
    add.s32 %r24, %r24, %r23;
    add.s64 %rd5, %rd2, %rd3; st.global.u32 [%rd5], %r24;
    mul.wide.u32 %rd6, %r5, 8; add.s64 %rd7, %rd2, 768; add.s64 %rd7, %rd7, %rd6;
    st.global.u64 [%rd7], %rd20;
    ret;
}}

// Threads t < s keep x[t] and x[t] + 1; the others load out[t] (as yet 0xeeeeeeee) and
// x[t] or out[t] by the parity of t (two allocations, which the second load's site entry
// cannot both pass) and add them. out[t] = the first value, out[192 + t] = the second.
.visible .entry apart(.param .u64 x, .param .u64 out, .param .u32 s, .param .u32 unused)
{{
    .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [s];
    mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    and.b32 %r6, %r2, 1; setp.eq.u32 %p3, %r6, 0;
    selp.b64 %rd6, %rd4, %rd5, %p3;
    ld.global.u32 %r7, [%rd4];
    add.s32 %r8, %r7, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra KEEP;
    ld.global.u32 %r7, [%rd5];
    ld.global.u32 %r8, [%rd6];
    add.s32 %r8, %r8, %r7;
KEEP:
    st.global.u32 [%rd5], %r7;
    add.s64 %rd7, %rd5, 768; st.global.u32 [%rd7], %r8;
    ret;
}}
"#
    )
}

/// Runs `name` on 3 blocks of 64 threads with scalars `s` and `back`, interpreted and as
/// `kernel` (compiled): the output's words (768 bytes of words, then 64-bit words) or the
/// fault (addresses left out).
fn run(
    s: &Setup,
    name: &str,
    kernel: &CompiledKernel,
    scalars: [u32; 2],
) -> [Result<Vec<u32>, String>; 2] {
    let handle = s.program.kernel(name).unwrap();
    let cfg = common::config(3, 64, 2);
    let input: Vec<u8> = (0..192u32)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 7).to_le_bytes())
        .collect();
    let launch = |compiled: Option<&CompiledKernel>| {
        s.try_run_in_out((&handle, compiled), &cfg, &input, 3 * 64 * 12, &scalars)
    };
    [launch(None), launch(Some(kernel))]
}

/// `name` compiled in groups of `group_threads`, running in groups.
fn grouped(s: &Setup, name: &str, group_threads: u32) -> CompiledKernel {
    let kernel = common::compile_grouped(&s.program, name, group_threads);
    assert_eq!(kernel.vector(), Ok(()), "{name} runs in groups");
    kernel
}

#[test]
fn a_scan_whose_steps_part_groups_loads_as_interpreted_without_leaving_the_groups() {
    let s = Setup::of(&kernels());
    for group_threads in common::GROUPS {
        let kernel = grouped(&s, "scan", group_threads);
        for bound in [0u32, 1, 3, 5, 8, 13, 16, 30, 63, 64, 100] {
            // Thread t >= s reads word t - s; the others' addresses lie below the shared
            // memory.
            let [want, got] = run(&s, "scan", &kernel, [bound, 4 * bound]);
            assert!(want.is_ok(), "{want:?}");
            assert_eq!(got, want, "groups of {group_threads}, s {bound}");
        }
        assert_eq!(
            kernel.groups().1,
            0,
            "groups of {group_threads}: none handed over"
        );
    }
}

#[test]
fn a_refused_check_hands_the_group_over_with_the_registers_of_the_branch() {
    let s = Setup::of(&kernels());
    for group_threads in common::GROUPS {
        let kernel = grouped(&s, "apart", group_threads);
        for bound in [0u32, 1, 2, 5, 9, 17, 33, 64] {
            let [want, got] = run(&s, "apart", &kernel, [bound, 0]);
            assert!(want.is_ok(), "{want:?}");
            assert_eq!(got, want, "groups of {group_threads}, s {bound}");
        }
        assert!(
            kernel.groups().1 > 0,
            "groups of {group_threads}: some check refused"
        );
    }
}

#[test]
fn a_thread_that_loads_past_the_end_faults_as_interpreted() {
    let s = Setup::of(&kernels());
    for group_threads in common::GROUPS {
        // back = -160: thread t >= 40 reads word t + 40, past the block's 64 words; the
        // first to run the load past the end is thread 40.
        let kernel = grouped(&s, "scan", group_threads);
        let [want, got] = run(&s, "scan", &kernel, [40, 160u32.wrapping_neg()]);
        assert!(
            want.as_ref()
                .is_err_and(|f| f.contains("thread (40, 0, 0)")),
            "{want:?}"
        );
        assert_eq!(got, want, "groups of {group_threads}");
    }
}
