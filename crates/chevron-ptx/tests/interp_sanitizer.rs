//! Interpreter tests of what the sanitizer reports: source positions from `.loc` (inlined frames
//! included), each kernel's exact shared-memory bound, and CUDA's per-thread `assert` lines.

mod interp_common;

use chevron_ptx::interp::{FaultKind, LaunchConfig};
use interp_common::*;

/// `read(p, i)` inlined into `kernel(p)` at a.cu:8:5; thread 7 reads one float past the end.
const INLINED: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry _Z6kernelPf(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<2>;
    .loc 1 6 5
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    .loc 1 3 12, function_name $L__info_string0, inlined_at 1 8 5
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3+4];
    .loc 1 9 1
    ret;
}
    .file 1 "/home/user/project/a.cu"
    .section .debug_str
    {
$L__info_string0:
.b8 95,90,52,114,101,97,100,80,75,102,105,0
    }
"#;

#[test]
fn faults_name_the_source_line_and_the_inlined_frames() {
    let (memory, program) = load(INLINED);
    assert!(program.has_line_info());
    let kernel = program.kernel("_Z6kernelPf").unwrap();
    let buffer = upload_f32(&memory, &[0.0; 8]);
    let params = Params::new().u64(buffer).build(&kernel);
    let fault = program
        .launch(&kernel, &config([1, 1, 1], [8, 1, 1], 1), &params)
        .unwrap_err();
    assert_eq!(fault.kind, FaultKind::OutOfBounds);
    assert_eq!(fault.thread, [7, 0, 0]);
    let position = fault.source_position().unwrap();
    assert_eq!(&*position.file, "/home/user/project/a.cu");
    assert_eq!((position.line, position.column), (3, 12));
    assert_eq!(fault.source[1].position.line, 8);
    let text = fault.to_string();
    assert!(
        text.starts_with(
            "out-of-bounds access in kernel `kernel(float*)` at a.cu:3:12 (in `read(float \
             const*, int)`, inlined at a.cu:8:5), block (0, 0, 0), thread (7, 0, 0)"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("(PTX line 17: `ld.global.f32 %f1, [%rd3+4];`)"),
        "{text}"
    );
}

#[test]
fn faults_without_line_info_say_how_to_get_it() {
    let stripped: String = INLINED
        .lines()
        .filter(|l| !l.trim_start().starts_with(".loc"))
        .collect::<Vec<_>>()
        .join("\n");
    let (memory, program) = load(&stripped);
    assert!(!program.has_line_info());
    let kernel = program.kernel("_Z6kernelPf").unwrap();
    let buffer = upload_f32(&memory, &[0.0; 8]);
    let params = Params::new().u64(buffer).build(&kernel);
    let fault = program
        .launch(&kernel, &config([1, 1, 1], [8, 1, 1], 1), &params)
        .unwrap_err();
    assert!(fault.source.is_empty());
    let text = fault.to_string();
    assert!(
        text.contains("kernel `kernel(float*)`, block (0, 0, 0), thread (7, 0, 0), PTX line 15:"),
        "{text}"
    );
    assert!(
        text.ends_with("(no source line: compile with -lineinfo)"),
        "{text}"
    );
}

/// `small` has 256 bytes of shared memory and writes word `index`; `big` has 2048 bytes.
const TWO_KERNELS: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dynamic[];

.visible .entry big()
{
    .reg .b32 %r<2>;
    .shared .align 4 .b8 scratch[2048];
    mov.u32 %r1, 1;
    st.shared.u32 [scratch+2044], %r1;
    ret;
}

.visible .entry small(.param .u32 index, .param .u32 dynamic_index)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b8 tile[256];
    ld.param.u32 %r1, [index];
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, tile;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    ld.param.u32 %r1, [dynamic_index];
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, dynamic;
    add.u32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    ret;
}
"#;

#[test]
fn each_kernel_is_checked_against_its_own_shared_memory() {
    let (_memory, program) = load(TWO_KERNELS);
    let small = program.kernel("small").unwrap();
    let big = program.kernel("big").unwrap();
    assert_eq!(program.kernel_static_shared(&small), 256);
    assert_eq!(program.kernel_static_shared(&big), 2048);
    let run = |index: u32, dynamic_index: u32, dynamic_shared: u32| {
        let params = Params::new().u32(index).u32(dynamic_index).build(&small);
        let config = LaunchConfig {
            dynamic_shared,
            ..config([1, 1, 1], [1, 1, 1], 1)
        };
        program.launch(&small, &config, &params).map_err(Box::new)
    };
    // The last word of the tile and of 64 bytes of dynamic shared memory are fine.
    run(63, 15, 64).unwrap();
    // One word past the tile lands in the dynamic part only when there is one.
    let fault = run(64, 0, 0).unwrap_err();
    assert_eq!(fault.kind, FaultKind::SharedOverrun);
    assert!(
        fault.detail.contains("the block has 256 bytes"),
        "{}",
        fault.detail
    );
    // One word past the dynamic part.
    let fault = run(0, 16, 64).unwrap_err();
    assert_eq!(fault.kind, FaultKind::SharedOverrun);
    assert_eq!(fault.address, Some(256 + 64));
    assert!(program
        .launch(&big, &config([1, 1, 1], [1, 1, 1], 1), &[])
        .is_ok());
}

/// Threads whose value is negative fail `assert(v >= 0)` at a.cu:7 in `check(int const*)`.
const ASSERTS: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 s);
.global .align 1 .b8 message[7] = {118, 32, 62, 61, 32, 48, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 function[24] = {118, 111, 105, 100, 32, 99, 104, 101, 99, 107, 40, 99, 111, 110, 115, 116, 32, 105, 110, 116, 32, 42, 41, 0};

.visible .entry _Z5checkPKi(.param .u64 values)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [values];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.s32 %r5, [%rd3];
    setp.ge.s32 %p1, %r5, 0;
    @%p1 bra DONE;
    mov.u64 %rd4, message;
    cvta.global.u64 %rd4, %rd4;
    mov.u64 %rd5, file;
    cvta.global.u64 %rd5, %rd5;
    mov.u64 %rd6, function;
    cvta.global.u64 %rd6, %rd6;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd4;
    .param .b64 param1;
    st.param.b64 [param1], %rd5;
    .param .b32 param2;
    st.param.b32 [param2], 7;
    .param .b64 param3;
    st.param.b64 [param3], %rd6;
    .param .b64 param4;
    st.param.b64 [param4], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
    }
DONE:
    ret;
}
"#;

#[test]
fn every_failing_assert_is_reported_in_cuda_format() {
    let (memory, program) = load(ASSERTS);
    let kernel = program.kernel("_Z5checkPKi").unwrap();
    let mut values = vec![1u32; 128];
    for bad in [5, 40, 41, 97] {
        values[bad] = u32::MAX;
    }
    let buffer = upload_u32(&memory, &values);
    let params = Params::new().u64(buffer).build(&kernel);
    for threads in [1, 3] {
        let fault = program
            .launch(&kernel, &config([4, 1, 1], [32, 1, 1], threads), &params)
            .unwrap_err();
        assert_eq!(fault.kind, FaultKind::AssertFailed);
        assert_eq!((fault.block, fault.thread), ([0, 0, 0], [5, 0, 0]));
        assert_eq!(fault.failed_asserts, 4);
        assert_eq!(
            fault.assertions,
            [
                "a.cu:7: void check(const int *): block: [0,0,0], thread: [5,0,0] Assertion `v >= 0` failed.",
                "a.cu:7: void check(const int *): block: [1,0,0], thread: [8,0,0] Assertion `v >= 0` failed.",
                "a.cu:7: void check(const int *): block: [1,0,0], thread: [9,0,0] Assertion `v >= 0` failed.",
                "a.cu:7: void check(const int *): block: [3,0,0], thread: [1,0,0] Assertion `v >= 0` failed.",
            ]
        );
        assert!(
            fault.detail.contains("Assertion `v >= 0` failed."),
            "{}",
            fault.detail
        );
    }
}

/// `out[i] = in[i]` for every thread.
const COPY: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry copy(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    ret;
}
"#;

#[test]
fn initcheck_reports_loads_of_bytes_never_written() {
    let (memory, program) = load(COPY);
    memory.track_definedness(true);
    let kernel = program.kernel("copy").unwrap();
    let input = memory.alloc(64 * 4, 256).unwrap();
    let output = memory.alloc(64 * 4, 256).unwrap();
    let params = Params::new().u64(input).u64(output).build(&kernel);
    let run = || {
        program
            .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
            .map_err(Box::new)
    };
    // Nothing written: thread 0's load is the finding.
    let fault = run().unwrap_err();
    assert_eq!(fault.kind, FaultKind::UninitializedRead);
    assert_eq!((fault.thread, fault.address), ([0, 0, 0], Some(input)));
    // 40 elements from the host: thread 40 is the first to read an unwritten one.
    memory.write(input, &[7u8; 40 * 4]).unwrap();
    let fault = run().unwrap_err();
    assert_eq!(fault.thread, [40, 0, 0]);
    assert!(fault.detail.contains("never written"), "{}", fault.detail);
    // A fill writes the rest; the kernel's stores define its output, which a copy reads.
    memory.fill(input + 160, &[0], 96).unwrap();
    run().unwrap();
    memory.copy(input, output, 64 * 4).unwrap();
    run().unwrap();
    // Without tracking (the default), unwritten memory reads as zero.
    let (memory, program) = load(COPY);
    let kernel = program.kernel("copy").unwrap();
    let input = memory.alloc(64 * 4, 256).unwrap();
    let params = Params::new().u64(input).u64(input).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
        .unwrap();
}

/// Warp 0 waits at one `bar.sync 0`, warp 1 at another (`divergent` = 1), or both at one
/// `bar.sync 1` with counts 64 and `count`.
const BARRIERS: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry barriers(.param .u32 divergent, .param .u32 count)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    ld.param.u32 %r1, [divergent];
    ld.param.u32 %r2, [count];
    mov.u32 %r3, %tid.x;
    setp.lt.u32 %p1, %r3, 32;
    setp.ne.u32 %p2, %r1, 0;
    @!%p2 bra COUNTS;
    @%p1 bra FIRST;
    bar.sync 0;
    ret;
FIRST:
    bar.sync 0;
    ret;
COUNTS:
    selp.u32 %r4, 64, %r2, %p1;
    bar.sync 1, %r4;
    ret;
}
"#;

#[test]
fn synccheck_reports_divergent_barriers_and_mismatched_counts() {
    let (memory, program) = load(BARRIERS);
    let kernel = program.kernel("barriers").unwrap();
    let run = |divergent: u32, count: u32| {
        let params = Params::new().u32(divergent).u32(count).build(&kernel);
        program
            .launch(&kernel, &config([1, 1, 1], [64, 1, 1], 1), &params)
            .map_err(Box::new)
    };
    // Unchecked, the CPU device runs both as a GPU of compute capability 7.0 or later does.
    run(1, 64).unwrap();
    run(0, 64).unwrap();
    memory.set_check_barriers(true);
    run(0, 64).unwrap();
    let fault = run(1, 64).unwrap_err();
    assert_eq!(fault.kind, FaultKind::BarrierError);
    assert_eq!(fault.thread, [32, 0, 0]);
    assert!(
        fault.detail.contains("from another instruction"),
        "{}",
        fault.detail
    );
    let fault = run(0, 96).unwrap_err();
    assert_eq!(fault.kind, FaultKind::BarrierError);
    assert!(
        fault.detail.contains("count is 96 here, 64 where"),
        "{}",
        fault.detail
    );
}
