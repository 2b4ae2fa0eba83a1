//! Interpreter tests: shared memory, barriers and deadlock detection.

mod interp_common;

use interp_common::*;

/// Tree reduction in shared memory: each block sums 256 values, thread 0 adds it to out[0].
const REDUCE: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry reduce(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 buf[1024];

    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, buf;
    shl.b32 %r7, %r1, 2;
    add.s32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.sync 0;
    shr.u32 %r9, %r3, 1;
LOOP:
    setp.eq.s32 %p1, %r9, 0;
    @%p1 bra END;
    setp.ge.u32 %p2, %r1, %r9;
    @%p2 bra SKIP;
    shl.b32 %r10, %r9, 2;
    add.s32 %r10, %r8, %r10;
    ld.shared.u32 %r11, [%r10];
    ld.shared.u32 %r5, [%r8];
    add.s32 %r5, %r5, %r11;
    st.shared.u32 [%r8], %r5;
SKIP:
    bar.sync 0;
    shr.u32 %r9, %r9, 1;
    bra LOOP;
END:
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.shared.u32 %r5, [buf];
    cvta.to.global.u64 %rd2, %rd2;
    atom.global.add.u32 %r11, [%rd2], %r5;
DONE:
    ret;
}
"#;

#[test]
fn shared_memory_tree_reduction_with_barriers() {
    for threads in [1, 2] {
        let (memory, program) = load(REDUCE);
        let data: Vec<u32> = (0..2048).map(|i| i * 3 + 1).collect();
        let input = upload_u32(&memory, &data);
        let out = upload_u32(&memory, &[0]);
        let kernel = program.kernel("reduce").unwrap();
        let params = Params::new().u64(input).u64(out).build(&kernel);
        program
            .launch(&kernel, &config([8, 1, 1], [256, 1, 1], threads), &params)
            .unwrap();
        assert_eq!(download_u32(&memory, out, 1)[0], data.iter().sum::<u32>());
    }
}

/// Dynamic shared memory, bar.red.popc and a barrier that exited threads do not block.
const BAR_RED: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 dyn[];

.visible .entry count_odd(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;

    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p3, %r1, 96;
    @%p3 exit;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    bar.red.popc.u32 %r3, 0, %p1;
    mov.u32 %r4, dyn;
    shl.b32 %r5, %r1, 2;
    add.s32 %r4, %r4, %r5;
    st.shared.u32 [%r4], %r3;
    bar.sync 0;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra DONE;
    mov.u32 %r4, dyn;
    ld.shared.u32 %r6, [%r4+380];
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r6;
    bar.red.and.pred %p1, 1, %p2;
    selp.u32 %r7, 1, 0, %p1;
    st.global.u32 [%rd1+4], %r7;
DONE:
    ret;
}
"#;

#[test]
fn bar_red_counts_predicates_and_exited_threads_are_not_waited_for() {
    let (memory, program) = load(BAR_RED);
    let out = upload_u32(&memory, &[0, 7]);
    let kernel = program.kernel("count_odd").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    let mut cfg = config([1, 1, 1], [128, 1, 1], 1);
    cfg.dynamic_shared = 512;
    program.launch(&kernel, &cfg, &params).unwrap();
    // 96 live threads, 48 of them odd; thread 95 stored the count at offset 380.
    assert_eq!(download_u32(&memory, out, 2), vec![48, 0]);
}

const DEADLOCK: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry stuck()
{
    .reg .pred %p1;
    .reg .b32 %r1;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra LOW;
    bar.sync 1;
    ret;
LOW:
    bar.sync 0;
    ret;
}
"#;

#[test]
fn a_barrier_that_can_never_complete_is_a_deadlock_fault() {
    let (_memory, program) = load(DEADLOCK);
    let kernel = program.kernel("stuck").unwrap();
    let fault = program
        .launch(&kernel, &config([2, 1, 1], [64, 1, 1], 1), &[])
        .unwrap_err();
    assert_eq!(fault.kind, chevron_ptx::interp::FaultKind::Deadlock);
    assert_eq!(fault.kernel, "stuck");
    assert_eq!(fault.block, [0, 0, 0]);
    assert!(fault.line == 13 || fault.line == 16, "{fault}");
    let text = fault.to_string();
    assert!(
        text.contains("stuck") && text.contains("bar.sync"),
        "{text}"
    );
}

/// Named barrier with a thread count: warps 0 and 1 sync on barrier 1 while warp 2 runs on.
const NAMED: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry named(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 flag[4];

    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    setp.ge.u32 %p1, %r1, 64;
    @%p1 bra OTHER;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra WAIT;
    mov.u32 %r2, 42;
    st.shared.u32 [flag], %r2;
WAIT:
    bar.sync 1, 64;
    ld.shared.u32 %r3, [flag];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
OTHER:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
"#;

#[test]
fn named_barrier_with_thread_count() {
    let (memory, program) = load(NAMED);
    let out = upload_u32(&memory, &[0; 96]);
    let kernel = program.kernel("named").unwrap();
    let params = Params::new().u64(out).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [96, 1, 1], 1), &params)
        .unwrap();
    let result = download_u32(&memory, out, 96);
    for (i, v) in result.iter().enumerate() {
        assert_eq!(*v, if i < 64 { 42 } else { i as u32 }, "thread {i}");
    }
}
