//! Random kernels that call random device functions, compiled (calls inlined) against
//! interpreted: `.param` arguments and results, nested calls, guarded calls and early guarded
//! `ret`s, functions that end without `ret`, and local arrays in every frame indexed by data
//! (slots read before any write read the interpreter's zeros). Every output bit must be the
//! interpreter's.

mod common;

use std::fmt::Write;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, Rng, HEADER};

/// Registers a body computes with: `%r1..%r8`.
fn reg(rng: &mut Rng) -> String {
    format!("%r{}", 1 + rng.below(8))
}

fn operand(rng: &mut Rng) -> String {
    if rng.below(4) == 0 {
        format!("{}", rng.below(1000) as i64 - 500)
    } else {
        reg(rng)
    }
}

/// A call of function `callee` with two arguments, its result into a register; `label` makes
/// the call's `.param` names unique. Guarded half of the time.
fn call(rng: &mut Rng, callee: usize, label: &mut u32, text: &mut String) {
    *label += 1;
    let (a, b, d) = (operand(rng), operand(rng), reg(rng));
    let guard = if rng.below(2) == 0 { "@%p1 " } else { "" };
    writeln!(
        text,
        "    {{ .param .b32 a{label}; .param .b32 b{label}; .param .b32 r{label};\n    \
         st.param.b32 [a{label}], {a}; st.param.b32 [b{label}], {b}; st.param.b32 [r{label}], 0;\n    \
         {guard}call.uni (r{label}), f{callee}, (a{label}, b{label});\n    \
         ld.param.b32 {d}, [r{label}]; }}"
    )
    .unwrap();
}

/// A random straight-line body over `%r1..%r8`, the frame's 8-word `buf`, and at most one call
/// to one of `f0..f(callees - 1)` (so that inlining stays well below its limits).
fn body(rng: &mut Rng, callees: usize, label: &mut u32, text: &mut String) {
    let mut callees = callees;
    for _ in 0..4 + rng.below(10) {
        let d = reg(rng);
        match rng.below(8) {
            0..=2 => {
                let op = [
                    "add.s32",
                    "sub.s32",
                    "xor.b32",
                    "mul.lo.s32",
                    "and.b32",
                    "max.s32",
                ][rng.below(6) as usize];
                let (a, b) = (operand(rng), operand(rng));
                writeln!(text, "    {op} {d}, {a}, {b};").unwrap();
            }
            3 => {
                // buf[x & 7] = y
                let (x, y) = (reg(rng), operand(rng));
                writeln!(
                    text,
                    "    and.b32 %r9, {x}, 7; mul.wide.u32 %rd8, %r9, 4; add.s64 %rd8, %rd9, %rd8;\n    \
                     st.local.u32 [%rd8], {y};"
                )
                .unwrap();
            }
            4 => {
                // d = buf[x & 7] (perhaps never written: zero)
                let x = reg(rng);
                writeln!(
                    text,
                    "    and.b32 %r9, {x}, 7; mul.wide.u32 %rd8, %r9, 4; add.s64 %rd8, %rd9, %rd8;\n    \
                     ld.local.u32 {d}, [%rd8];"
                )
                .unwrap();
            }
            5 => {
                let (a, b) = (reg(rng), operand(rng));
                writeln!(text, "    setp.lt.s32 %p1, {a}, {b};").unwrap();
            }
            _ if callees > 0 => {
                let callee = rng.below(callees as u64) as usize;
                call(rng, callee, label, text);
                callees = 0;
            }
            _ => writeln!(text, "    add.s32 {d}, {d}, 1;").unwrap(),
        }
    }
}

const DECLS: &str = "    .local .align 4 .b8 buf[32];\n    .reg .pred %p<2>; .reg .b32 %r<10>; \
                     .reg .b64 %rd<10>;\n    mov.u64 %rd9, buf;\n";

/// A program of `functions` device functions (each may call the ones before it) and a kernel
/// `main` that writes `%r1..%r8` of every thread.
fn program(rng: &mut Rng, functions: usize) -> String {
    let mut text = String::from(HEADER);
    let mut label = 0;
    for f in 0..functions {
        writeln!(
            text,
            ".func (.param .b32 r) f{f}(.param .b32 a, .param .b32 b)\n{{\n{DECLS}"
        )
        .unwrap();
        writeln!(text, "    ld.param.b32 %r1, [a]; ld.param.b32 %r2, [b];").unwrap();
        for r in 3..=8 {
            writeln!(text, "    add.s32 %r{r}, %r1, {};", r * 7).unwrap();
        }
        writeln!(text, "    setp.gt.s32 %p1, %r1, %r2;").unwrap();
        body(rng, f, &mut label, &mut text);
        // An early return, with a result stored first, on some threads.
        writeln!(text, "    st.param.b32 [r], %r{};", 1 + rng.below(8)).unwrap();
        if rng.below(2) == 0 {
            writeln!(text, "    @%p1 ret;").unwrap();
        }
        body(rng, f, &mut label, &mut text);
        writeln!(text, "    st.param.b32 [r], %r{};", 1 + rng.below(8)).unwrap();
        // Half of the functions run off their end, which returns too.
        if rng.below(2) == 0 {
            writeln!(text, "    ret;").unwrap();
        }
        writeln!(text, "}}").unwrap();
    }
    writeln!(
        text,
        ".visible .entry main(.param .u64 xs, .param .u64 out)\n{{\n{DECLS}"
    )
    .unwrap();
    writeln!(
        text,
        "    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];\n    \
         mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;\n    \
         mad.lo.s32 %r4, %r2, %r3, %r1;\n    \
         mul.wide.u32 %rd3, %r4, 4; add.s64 %rd3, %rd1, %rd3; ld.global.u32 %r5, [%rd3];\n    \
         xor.b32 %r6, %r5, %r1; add.s32 %r7, %r5, 3; mul.lo.s32 %r8, %r5, %r4;\n    \
         setp.lt.u32 %p1, %r5, 100;\n    \
         mul.wide.u32 %rd4, %r4, 32; add.s64 %rd4, %rd2, %rd4;"
    )
    .unwrap();
    for _ in 0..3 {
        body(rng, functions, &mut label, &mut text);
        call(rng, functions - 1, &mut label, &mut text);
    }
    writeln!(
        text,
        "    st.global.v4.u32 [%rd4], {{%r1, %r2, %r3, %r4}};\n    \
         st.global.v4.u32 [%rd4+16], {{%r5, %r6, %r7, %r8}};\n    ret;\n}}"
    )
    .unwrap();
    text
}

#[test]
fn random_calls_give_the_interpreters_bits() {
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    for case in 0..40 {
        let functions = 1 + rng.below(4) as usize;
        let text = program(&mut rng, functions);
        let (memory, program) = load(&text);
        let handle = program.kernel("main").unwrap();
        let compiled = compile(&program, "main", true);
        let (blocks, threads) = (2, 32 + 32 * rng.below(2) as u32);
        let n = (blocks * threads) as usize;
        let xs: Vec<u8> = (0..n as u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> (i % 24)).to_le_bytes())
            .collect();
        let mut results = Vec::new();
        for use_compiled in [false, true] {
            let x = memory.alloc(xs.len() as u64, 256).unwrap();
            memory.write(x, &xs).unwrap();
            let out = memory.alloc(32 * n as u64, 256).unwrap();
            let p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
            let cfg = config(blocks, threads, 2);
            let outcome = if use_compiled {
                compiled.launch(&cfg, &p, &LaunchHooks::default())
            } else {
                program.launch(&handle, &cfg, &p)
            };
            outcome.unwrap_or_else(|f| panic!("case {case}: {f}\n{text}"));
            results.push(read_words(&memory, out, 8 * n));
        }
        assert_eq!(results[0], results[1], "case {case}:\n{text}");
    }
}
