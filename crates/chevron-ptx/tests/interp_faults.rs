//! Interpreter tests: every fault names the kernel, block, thread, PTX line and address.

mod interp_common;

use chevron_ptx::interp::{Fault, FaultKind};
use interp_common::*;

/// Thread `bad_thread` of block `bad_block` does the access selected by `mode`; everyone else
/// does a valid load.
const FAULTY: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry faulty(.param .u64 buf, .param .u32 mode, .param .u32 bad_thread, .param .u32 bad_block)
{
    .reg .pred %p<8>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    .shared .align 4 .b8 tile[64];

    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r1, [mode];
    ld.param.u32 %r2, [bad_thread];
    ld.param.u32 %r3, [bad_block];
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %ctaid.x;
    ld.global.u32 %r6, [%rd1];
    setp.ne.u32 %p1, %r4, %r2;
    @%p1 bra DONE;
    setp.ne.u32 %p1, %r5, %r3;
    @%p1 bra DONE;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 ld.global.u32 %r6, [%rd1+4096];
    setp.eq.u32 %p3, %r1, 1;
    @%p3 ld.global.u32 %r6, [%rd1+2];
    setp.eq.u32 %p4, %r1, 2;
    @%p4 st.shared.u32 [tile+64], %r6;
    setp.eq.u32 %p5, %r1, 3;
    @%p5 trap;
    setp.eq.u32 %p6, %r1, 4;
    @%p6 ld.u32 %r6, [0];
DONE:
    ret;
}
"#;

fn run(mode: u32, free_first: bool) -> (Fault, u64) {
    let (memory, program) = load(FAULTY);
    let buf = upload_u32(&memory, &[0; 16]);
    if free_first {
        memory.free(buf).unwrap();
    }
    let kernel = program.kernel("faulty").unwrap();
    let params = Params::new()
        .u64(buf)
        .u32(mode)
        .u32(37)
        .u32(2)
        .build(&kernel);
    let fault = program
        .launch(&kernel, &config([4, 1, 1], [64, 1, 1], 1), &params)
        .expect_err("the launch faults");
    (fault, buf)
}

fn check(fault: &Fault, kind: FaultKind, block: [u32; 3], thread: [u32; 3], line: u32, text: &str) {
    assert_eq!(fault.kind, kind, "{fault}");
    assert_eq!(fault.kernel, "faulty");
    assert_eq!(fault.block, block, "{fault}");
    assert_eq!(fault.thread, thread, "{fault}");
    assert_eq!(fault.line, line, "{fault}");
    assert!(fault.instruction.contains(text), "{fault}");
    let shown = fault.to_string();
    for part in ["faulty", &format!("line {line}"), text] {
        assert!(shown.contains(part), "`{part}` missing from: {shown}");
    }
}

#[test]
fn out_of_bounds_load() {
    let (fault, buf) = run(0, false);
    check(
        &fault,
        FaultKind::OutOfBounds,
        [2, 0, 0],
        [37, 0, 0],
        25,
        "ld.global.u32",
    );
    assert_eq!(fault.address, Some(buf + 4096));
}

#[test]
fn misaligned_load() {
    let (fault, buf) = run(1, false);
    check(
        &fault,
        FaultKind::Misaligned,
        [2, 0, 0],
        [37, 0, 0],
        27,
        "[%rd1+2]",
    );
    assert_eq!(fault.address, Some(buf + 2));
}

#[test]
fn shared_memory_overrun() {
    let (fault, _) = run(2, false);
    check(
        &fault,
        FaultKind::SharedOverrun,
        [2, 0, 0],
        [37, 0, 0],
        29,
        "st.shared.u32",
    );
}

#[test]
fn trap() {
    let (fault, _) = run(3, false);
    check(&fault, FaultKind::Trap, [2, 0, 0], [37, 0, 0], 31, "trap");
}

#[test]
fn null_pointer() {
    let (fault, _) = run(4, false);
    check(
        &fault,
        FaultKind::OutOfBounds,
        [2, 0, 0],
        [37, 0, 0],
        33,
        "ld.u32",
    );
    assert_eq!(fault.address, Some(0));
}

#[test]
fn use_after_free_is_reported_for_the_first_thread() {
    let (fault, buf) = run(0, true);
    check(
        &fault,
        FaultKind::UseAfterFree,
        [0, 0, 0],
        [0, 0, 0],
        19,
        "ld.global.u32",
    );
    assert_eq!(fault.address, Some(buf));
    assert!(fault.detail.contains("freed"), "{fault}");
}

#[test]
fn unsupported_instructions_are_rejected_at_load_with_function_and_line() {
    let ptx = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tensor()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 0;
    tcgen05.fence::before_thread_sync;
    ret;
}
"#;
    let module = chevron_ptx::parse(ptx).unwrap();
    let memory = std::sync::Arc::new(chevron_ptx::interp::DeviceMemory::new(0));
    let error = chevron_ptx::interp::Program::load(&module, &memory).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("tensor")
            && text.contains("line 10")
            && text.contains("not supported on the CPU device"),
        "{text}"
    );
}
