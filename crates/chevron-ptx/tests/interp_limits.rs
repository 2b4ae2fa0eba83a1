//! Hostile modules: declarations checked against the device's limits before anything is
//! allocated, recursion bounded by register memory, bounded and streamed `printf`, launches
//! stopped from the host, and blocks waiting on blocks that never start.

mod interp_common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chevron_ptx::interp::{DeviceMemory, FaultKind, LaunchHooks, Program};
use interp_common::*;

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

fn load_error(body: &str) -> String {
    interp_common::load_error(&format!("{HEADER}{body}"))
}

#[test]
fn two_billion_registers_are_refused_at_load() {
    let err = load_error(".visible .entry k() { .reg .b32 %r<2000000000>; ret; }");
    assert!(err.contains("registers, more than the 65536"), "{err}");
}

#[test]
fn a_gigabyte_local_array_is_refused_with_ptxas_words() {
    let err = load_error(".visible .entry k() { .local .align 4 .b8 buf[1073741824]; ret; }");
    assert!(
        err.contains("Entry function 'k' uses too much local data (0x40000000 bytes, 0x80000 max)"),
        "{err}"
    );
    let err = load_error(".func f() { .local .b8 buf[4294967296]; ret; }");
    assert!(
        err.contains("Function 'f' uses too much local data"),
        "{err}"
    );
}

#[test]
fn parameter_space_beyond_32764_bytes_is_refused() {
    let err = load_error(".visible .entry k(.param .align 4 .b8 p[32768]) { ret; }");
    assert!(
        err.contains("uses too much parameter space (0x8000 bytes, 0x7ffc max)"),
        "{err}"
    );
    let module = chevron_ptx::parse(&format!(
        "{HEADER}.visible .entry k(.param .align 4 .b8 p[32764]) {{ ret; }}"
    ))
    .unwrap();
    assert!(Program::load(&module, &Arc::new(DeviceMemory::new(0))).is_ok());
}

#[test]
fn recursion_with_many_registers_ends_in_the_call_depth_fault() {
    let (_memory, program) = load(&format!(
        "{HEADER}.func f() {{ .reg .b32 %r<20000>; call f, (); ret; }}\n\
         .visible .entry k() {{ call f, (); ret; }}"
    ));
    let kernel = program.kernel("k").unwrap();
    let fault = program
        .launch(&kernel, &config([1, 1, 1], [32, 1, 1], 1), &[])
        .expect_err("unbounded recursion faults");
    assert_eq!(fault.kind, FaultKind::StackOverflow, "{fault}");
    assert!(fault.detail.contains("calls nested deeper than"), "{fault}");
}

/// A kernel calling `printf(FORMAT, 7, 7)` `count` times per thread (a `u32` parameter).
fn printf_module(format: &str) -> String {
    let bytes: Vec<String> = format.bytes().chain([0]).map(|b| b.to_string()).collect();
    format!(
        "{HEADER}.extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);\n\
         .global .align 1 .b8 fmt[{}] = {{{}}};\n\
         .visible .entry k(.param .u32 count) {{\n\
           .local .align 8 .b8 args[8];\n\
           .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;\n\
           ld.param.u32 %r1, [count]; mov.u32 %r2, 0;\n\
           mov.u64 %rd1, args; cvta.local.u64 %rd2, %rd1; st.local.u32 [%rd1], 7;\n\
           st.local.u32 [%rd1+4], 7; mov.u64 %rd3, fmt; cvta.global.u64 %rd3, %rd3;\n\
         LOOP: setp.ge.u32 %p1, %r2, %r1; @%p1 bra DONE;\n\
           {{ .param .b64 p0; st.param.b64 [p0], %rd3; .param .b64 p1; st.param.b64 [p1], %rd2;\n\
             .param .b32 r0; call.uni (r0), vprintf, (p0, p1); }}\n\
           add.u32 %r2, %r2, 1; bra LOOP;\n\
         DONE: ret; }}",
        bytes.len(),
        bytes.join(", ")
    )
}

#[test]
fn printf_widths_and_precisions_are_bounded_and_linear() {
    for format in [
        "%999999999999d",
        "%.100000f",
        "%.*d",
        "%2147483647.2147483647d|",
    ] {
        let (_memory, program) = load(&printf_module(format));
        let kernel = program.kernel("k").unwrap();
        let started = Instant::now();
        let report = program
            .launch(
                &kernel,
                &config([1, 1, 1], [1, 1, 1], 1),
                &1u32.to_le_bytes(),
            )
            .unwrap_or_else(|f| panic!("{format}: {f}"));
        assert!(
            (1..=8192).contains(&report.printf_output.len()),
            "{format}: {} bytes",
            report.printf_output.len()
        );
        assert!(started.elapsed() < Duration::from_secs(5), "{format}");
    }
}

#[test]
fn printf_output_streams_through_a_bounded_buffer() {
    let (_memory, program) = load(&printf_module("line %d %d\n"));
    let kernel = program.kernel("k").unwrap();
    let total = AtomicUsize::new(0);
    let largest = AtomicUsize::new(0);
    let sink = |text: &str| {
        total.fetch_add(text.len(), Ordering::Relaxed);
        largest.fetch_max(text.len(), Ordering::Relaxed);
    };
    let hooks = LaunchHooks {
        printf: Some(&sink),
        ..LaunchHooks::default()
    };
    let report = program
        .launch_with(
            &kernel,
            &config([2, 1, 1], [32, 1, 1], 1),
            &200u32.to_le_bytes(),
            &hooks,
        )
        .unwrap();
    assert!(report.printf_output.is_empty());
    assert_eq!(total.into_inner(), 2 * 32 * 200 * "line 7 7\n".len());
    let largest = largest.into_inner();
    assert!((1..=(64 << 10) + 64).contains(&largest), "{largest}");
}

#[test]
fn a_stopped_launch_says_where_its_threads_are() {
    let (_memory, program) = load(&format!(
        "{HEADER}.visible .entry spin() {{\n.reg .b32 %r<2>;\nLOOP:\nadd.u32 %r1, %r1, 1;\nbra LOOP;\n}}"
    ));
    let kernel = program.kernel("spin").unwrap();
    let stop = AtomicBool::new(false);
    let hooks = LaunchHooks {
        stop: Some(&stop),
        ..LaunchHooks::default()
    };
    let fault = Mutex::new(None);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let result =
                program.launch_with(&kernel, &config([4, 1, 1], [64, 1, 1], 2), &[], &hooks);
            *fault.lock().unwrap() = result.err();
        });
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
    });
    let fault = fault.into_inner().unwrap().expect("the launch was stopped");
    assert_eq!(fault.kind, FaultKind::Stopped);
    assert!(fault.to_string().contains("64 at PTX line"), "{fault}");
}

#[test]
fn a_block_waiting_on_a_block_not_yet_started_is_a_deadlock() {
    // Every block but `setter` spins until block `setter` sets the flag.
    let (memory, program) = load(&format!(
        "{HEADER}.visible .entry wait_for_later(.param .u64 flag, .param .u32 setter) {{\n\
         .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [flag]; cvta.to.global.u64 %rd2, %rd1; ld.param.u32 %r3, [setter];\n\
         mov.u32 %r1, %ctaid.x; setp.eq.u32 %p1, %r1, %r3; @%p1 bra SET;\n\
         WAIT: ld.volatile.global.u32 %r2, [%rd2]; setp.eq.u32 %p1, %r2, 0; @%p1 bra WAIT;\n\
         ret;\n\
         SET: st.volatile.global.u32 [%rd2], 1; ret; }}"
    ));
    let flag = upload_u32(&memory, &[0]);
    let kernel = program.kernel("wait_for_later").unwrap();
    let run = |blocks: u32, workers: usize| {
        memory.write(flag, &[0; 4]).unwrap();
        let params = Params::new().u64(flag).u32(blocks - 1).build(&kernel);
        program
            .launch(
                &kernel,
                &config([blocks, 1, 1], [32, 1, 1], workers),
                &params,
            )
            .err()
    };
    // One worker cannot run the block that sets the flag.
    let fault = run(2, 1).expect("deadlock");
    assert_eq!(fault.kind, FaultKind::Deadlock, "{fault}");
    assert!(
        fault.detail.contains("1 later blocks wait to start"),
        "{fault}"
    );
    assert_eq!(fault.line, 8, "the spin loop's line: {fault}");
    // Two workers, both holding a waiting block, while the setter waits to start.
    let fault = run(3, 2).expect("deadlock");
    assert_eq!(fault.kind, FaultKind::Deadlock, "{fault}");
    // Enough workers for every block: the launch finishes.
    assert_eq!(run(2, 2), None);
    assert_eq!(run(3, 3), None);
}

#[test]
fn module_globals_are_counted_before_loading() {
    let module = chevron_ptx::parse(&format!(
        "{HEADER}.global .align 4 .b8 big[16000000000];\n.const .b32 c;\n.visible .entry k() {{ ret; }}"
    ))
    .unwrap();
    assert_eq!(Program::global_bytes(&module), 16_000_000_004);
}
