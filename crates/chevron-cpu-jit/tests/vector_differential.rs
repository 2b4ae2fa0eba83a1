//! A differential fuzz of the compiled executor against the interpreter whose kernels mostly
//! run four threads at a time: random kernels built from the instructions the vector planner
//! (`src/vector/plan.rs`) has four-wide forms for — 32- and 64-bit integer arithmetic, f32
//! arithmetic and conversions, compares and selects, global and shared accesses at consecutive
//! addresses, guarded stores, data-dependent forward branches, uniform and data-dependent
//! loops, barriers — and, in about one kernel in six, one instruction it has none for (a
//! division, a shift by a register, a signed or narrow load, a strided address, ...), so that
//! the scalar function is fuzzed too. Most launches have rows that are groups of four; the
//! vector function's groups are 4, 8, 16 or 32 threads wide in turn (the widest, up to the
//! case's, that divides the rows).
//!
//! Every output bit of the compiled code must be the interpreter's. The CI test runs 200
//! kernels; `CHEVRON_VECTOR_FUZZ=N` runs N (the ignored test runs 2,000 by default), and both
//! print how many kernels the planner accepted and how many launches entered the vector
//! function.

mod common;

use std::fmt::Write;
use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, LaunchHooks, Program};
use common::Rng;

/// 32-bit results per thread: `%r5..%r13` and `%f1..%f7`.
const OUTPUTS_32: usize = 16;
/// 64-bit results per thread: `%rd12..%rd15`.
const OUTPUTS_64: usize = 4;
/// Words of scratch per thread that the kernel stores to and loads back (`%rd20`, `%rd21`).
const SCRATCH: usize = 2;

fn int_src(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => format!("{}", rng.below(1 << 20) as i64 - (1 << 19)),
        1 => "%r0".into(),
        2 => "%r4".into(),
        3 => "%r13".into(),
        _ => format!("%r{}", 5 + rng.below(7)),
    }
}

/// A 32-bit register instructions write: `%r5..%r11` (`%r12` counts loops, `%r13` is `%tid.y`).
fn int_reg(rng: &mut Rng) -> String {
    format!("%r{}", 5 + rng.below(7))
}

fn float_reg(rng: &mut Rng) -> String {
    format!("%f{}", 1 + rng.below(7))
}

/// A 64-bit register instructions write: `%rd12..%rd15`.
fn wide_reg(rng: &mut Rng) -> String {
    format!("%rd{}", 12 + rng.below(4))
}

fn wide_src(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!("{}", rng.next() as i64 >> rng.below(64)),
        1 => "%rd2".into(),
        _ => wide_reg(rng),
    }
}

/// One random instruction with a four-wide form.
fn vector_instruction(rng: &mut Rng, text: &mut String) {
    let d = int_reg(rng);
    let line = match rng.below(20) {
        0..=3 => {
            let op = rng.pick(&[
                "add.s32",
                "sub.s32",
                "mul.lo.s32",
                "and.b32",
                "or.b32",
                "xor.b32",
                "min.s32",
                "max.u32",
                "min.u32",
                "max.s32",
                "add.u32",
                "mul.lo.u32",
            ]);
            format!("{op} {d}, {}, {};", int_src(rng), int_src(rng))
        }
        4 => {
            let op = rng.pick(&["shl.b32", "shr.s32", "shr.u32"]);
            format!("{op} {d}, {}, {};", int_src(rng), rng.below(40))
        }
        5 => format!(
            "mad.lo.{} {d}, {}, {}, {};",
            rng.pick(&["s32", "u32"]),
            int_src(rng),
            int_src(rng),
            int_src(rng)
        ),
        6 => {
            let cmp = rng.pick(&["lt", "le", "gt", "ge", "eq", "ne", "lo", "hs"]);
            let ty = if cmp == "lo" || cmp == "hs" {
                "u32"
            } else {
                rng.pick(&["s32", "u32", "b32"])
            };
            let ty = if ty == "b32" && !matches!(cmp, "eq" | "ne") {
                "s32"
            } else {
                ty
            };
            let p = rng.below(3);
            format!(
                "setp.{cmp}.{ty} %p{p}, {}, {};\n    selp.b32 {d}, {}, {}, %p{p};",
                int_src(rng),
                int_src(rng),
                int_src(rng),
                int_src(rng)
            )
        }
        7 => {
            let w = wide_reg(rng);
            match rng.below(6) {
                0 => format!(
                    "mul.wide.{} {w}, {}, {};",
                    rng.pick(&["s32", "u32"]),
                    int_src(rng),
                    int_src(rng)
                ),
                1 => format!(
                    "mad.wide.{} {w}, {}, {}, {};",
                    rng.pick(&["s32", "u32"]),
                    int_src(rng),
                    int_src(rng),
                    wide_src(rng)
                ),
                2 => format!(
                    "cvt.{}.{} {w}, {};",
                    rng.pick(&["u64", "s64"]),
                    rng.pick(&["u32", "s32"]),
                    int_reg(rng)
                ),
                3 => format!(
                    "{} {w}, {}, {};",
                    rng.pick(&["shl.b64", "shr.s64", "shr.u64"]),
                    wide_src(rng),
                    rng.below(64)
                ),
                _ => format!(
                    "{} {w}, {}, {};",
                    rng.pick(&[
                        "add.s64",
                        "sub.s64",
                        "and.b64",
                        "or.b64",
                        "xor.b64",
                        "mul.lo.s64",
                        "min.s64",
                        "max.u64"
                    ]),
                    wide_src(rng),
                    wide_src(rng)
                ),
            }
        }
        8 => {
            // A 64-bit compare, and a 64-bit select.
            let (w, p) = (wide_reg(rng), rng.below(3));
            format!(
                "setp.{}.{} %p{p}, {}, {};\n    selp.b64 {w}, {}, {}, %p{p};",
                rng.pick(&["lt", "ge", "ne"]),
                rng.pick(&["s64", "u64"]),
                wide_src(rng),
                wide_src(rng),
                wide_src(rng),
                wide_src(rng)
            )
        }
        9..=11 => {
            let (f, a, b, c) = (
                float_reg(rng),
                float_reg(rng),
                float_reg(rng),
                float_reg(rng),
            );
            match rng.below(6) {
                0 => format!("add.rn.f32 {f}, {a}, {b};"),
                1 => format!("sub.rn.f32 {f}, {a}, {b};"),
                2 => format!("mul.rn.f32 {f}, {a}, {b};"),
                3 => format!("min.f32 {f}, {a}, {b};"),
                4 => format!("max.f32 {f}, {a}, {b};"),
                _ => format!("fma.rn.f32 {f}, {a}, {b}, {c};"),
            }
        }
        12 => format!("mov.b32 {d}, {};", float_reg(rng)),
        13 => format!("mov.b32 {}, {};", float_reg(rng), int_reg(rng)),
        14 => {
            let cmp = rng.pick(&[
                "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
            ]);
            let logic = rng.pick(&["and", "or", "xor"]);
            format!(
                "setp.{cmp}.f32 %p1, {}, {};\n    {logic}.pred %p1, %p1, %p0;\n    selp.b32 {d}, {}, {}, %p1;",
                float_reg(rng),
                float_reg(rng),
                int_src(rng),
                int_src(rng)
            )
        }
        15 => format!(
            "cvt.rn.f32.{} {}, {};",
            rng.pick(&["s32", "u32"]),
            float_reg(rng),
            int_src(rng)
        ),
        16 => format!(
            "cvt.rzi.{}.f32 {d}, {};",
            rng.pick(&["s32", "u32"]),
            float_reg(rng)
        ),
        17 => {
            // A store to one of this thread's scratch words, guarded by a predicate of the
            // data, and a load back.
            let word = rng.pick(&["%rd20", "%rd21"]);
            format!(
                "setp.lt.u32 %p2, {}, {};\n    @%p2 st.global.u32 [{word}], {};\n    ld.global.u32 {d}, [{word}];",
                int_reg(rng),
                int_src(rng),
                int_reg(rng)
            )
        }
        18 => {
            let at = rng.pick(&["%rd3", "%rd8", "%rd0", "%rd3+4", "%rd0+12"]);
            if rng.below(2) == 0 {
                format!("ld.global.u32 {d}, [{at}];")
            } else {
                format!("ld.global.f32 {}, [{at}];", float_reg(rng))
            }
        }
        _ => {
            let (a, b) = (int_reg(rng), int_src(rng));
            let neg = if rng.below(2) == 0 { "!" } else { "" };
            format!(
                "setp.lt.s32 %p0, {a}, {b};\n    @{neg}%p0 add.s32 {d}, {d}, {};",
                int_src(rng)
            )
        }
    };
    writeln!(text, "    {line}").unwrap();
}

/// One instruction the vector planner has no four-wide form for (the kernel stays scalar).
fn scalar_instruction(rng: &mut Rng, text: &mut String) {
    let (d, a) = (int_reg(rng), int_reg(rng));
    let line = match rng.below(8) {
        0 => format!(
            "or.b32 %r14, {a}, 1;\n    div.u32 {d}, {}, %r14;",
            int_src(rng)
        ),
        1 => format!(
            "or.b32 %r14, {a}, 1;\n    rem.u32 {d}, {}, %r14;",
            int_src(rng)
        ),
        2 => format!("shl.b32 {d}, {}, {a};", int_src(rng)),
        3 => format!("popc.b32 {d}, {a};"),
        4 => format!("cvt.u32.u64 {d}, {};", wide_reg(rng)),
        5 => format!("ld.global.s32 {d}, [%rd3];"),
        6 => format!("sqrt.rn.f32 {}, {};", float_reg(rng), float_reg(rng)),
        _ => "ld.global.u32 %r14, [%rd11];\n    add.s32 %r5, %r5, %r14;".to_string(),
    };
    writeln!(text, "    {line}").unwrap();
}

/// A random kernel `k(x, out, u, n)`: `x` holds 2 input words per thread (4 bytes apart by
/// thread), `out` the 32-bit outputs (output-major), then the 64-bit ones, then the scratch.
fn kernel(rng: &mut Rng, shared_words: u32, scalar: bool) -> String {
    let mut text = String::new();
    writeln!(
        text,
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 x, .param .u64 out, .param .u32 u, .param .u32 n)\n{{\n\
         .shared .align 4 .b32 sh[{shared_words}];\n\
         .reg .pred %p<4>; .reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<24>;\n\
         ld.param.u64 %rd0, [x]; ld.param.u64 %rd1, [out]; ld.param.u32 %r0, [u];\n\
         mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n\
         mad.lo.s32 %r16, %r2, %r3, %r1;\n\
         mov.u32 %r17, %ctaid.x; mov.u32 %r18, %ntid.y; mul.lo.s32 %r18, %r18, %r3;\n\
         mad.lo.s32 %r4, %r17, %r18, %r16;\n\
         mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd0, %rd2;\n\
         ld.param.u32 %r19, [n]; mul.wide.u32 %rd4, %r19, 4;\n\
         add.s64 %rd8, %rd3, %rd4;\n\
         mul.wide.u32 %rd10, %r4, 8; add.s64 %rd11, %rd0, %rd10;\n\
         mul.wide.u32 %rd20, %r19, {scratch_at}; add.s64 %rd20, %rd20, %rd1;\n\
         add.s64 %rd20, %rd20, %rd2; add.s64 %rd21, %rd20, %rd4;\n\
         ld.global.u32 %r5, [%rd3]; ld.global.u32 %r6, [%rd8];\n\
         ld.global.f32 %f1, [%rd3]; ld.global.f32 %f2, [%rd8];\n\
         ld.global.u32 %r7, [%rd0]; ld.global.u64 %rd12, [%rd0+8];\n\
         cvt.u64.u32 %rd13, %r6; mul.wide.s32 %rd14, %r5, %r0; mov.b64 %rd15, %rd2;\n\
         mov.u32 %r8, %r1; mov.u32 %r9, 3; mov.u32 %r10, %r0; mov.u32 %r11, %r4;\n\
         mov.u32 %r13, %r2; mov.u32 %r12, 0;\n\
         mov.f32 %f3, 0f3FC00000; mov.f32 %f4, 0f7F800000; mov.f32 %f5, %f1; mov.f32 %f6, %f2;\n\
         mov.f32 %f7, 0fBF000000;",
        scratch_at = 4 * (OUTPUTS_32 + 2 * OUTPUTS_64),
    )
    .unwrap();
    let sections = 3;
    let scalar_at = scalar.then(|| rng.below(sections));
    for label in 0..sections {
        for _ in 0..4 + rng.below(6) {
            vector_instruction(rng, &mut text);
        }
        if scalar_at == Some(label) {
            scalar_instruction(rng, &mut text);
        }
        section(rng, &mut text, label);
    }
    // Outputs: out[j * n + i] (32-bit), then out64[j * n + i] (64-bit).
    writeln!(text, "    add.s64 %rd9, %rd1, %rd2;").unwrap();
    for j in 0..OUTPUTS_32 {
        let (src, ty) = if j < 9 {
            (format!("%r{}", 5 + j), "u32")
        } else {
            (format!("%f{}", j - 8), "f32")
        };
        writeln!(
            text,
            "    st.global.{ty} [%rd9], {src}; add.s64 %rd9, %rd9, %rd4;"
        )
        .unwrap();
    }
    writeln!(
        text,
        "    mul.wide.u32 %rd9, %r19, {}; add.s64 %rd9, %rd9, %rd1; add.s64 %rd9, %rd9, %rd10;\n\
         add.s64 %rd22, %rd4, %rd4;",
        4 * OUTPUTS_32
    )
    .unwrap();
    for j in 0..OUTPUTS_64 {
        writeln!(
            text,
            "    st.global.u64 [%rd9], %rd{}; add.s64 %rd9, %rd9, %rd22;",
            12 + j
        )
        .unwrap();
    }
    writeln!(text, "    ret;\n}}").unwrap();
    text
}

/// The control flow closing a section: a forward branch on the data (an if, or an if/else), a
/// uniform counted loop, a loop whose count depends on the thread's data, or a round through
/// shared memory between barriers.
fn section(rng: &mut Rng, text: &mut String, label: u64) {
    match rng.below(5) {
        0 => {
            let (a, b) = (int_reg(rng), int_src(rng));
            writeln!(
                text,
                "    setp.ge.u32 %p1, {a}, {b};\n    @%p1 bra SKIP{label};"
            )
            .unwrap();
            for _ in 0..1 + rng.below(4) {
                vector_instruction(rng, text);
            }
            writeln!(text, "SKIP{label}:").unwrap();
        }
        1 => {
            let (a, b) = (int_reg(rng), int_src(rng));
            writeln!(
                text,
                "    setp.lt.s32 %p1, {a}, {b};\n    @%p1 bra ELSE{label};"
            )
            .unwrap();
            for _ in 0..1 + rng.below(3) {
                vector_instruction(rng, text);
            }
            writeln!(text, "    bra.uni JOIN{label};\nELSE{label}:").unwrap();
            for _ in 0..1 + rng.below(3) {
                vector_instruction(rng, text);
            }
            writeln!(text, "JOIN{label}:").unwrap();
        }
        2 => {
            writeln!(text, "    mov.u32 %r12, 0;\nLOOP{label}:").unwrap();
            for _ in 0..1 + rng.below(3) {
                vector_instruction(rng, text);
            }
            writeln!(
                text,
                "    add.s32 %r12, %r12, 1;\n    setp.lt.u32 %p3, %r12, {};\n    @%p3 bra LOOP{label};",
                2 + rng.below(3)
            )
            .unwrap();
        }
        3 => {
            // Each thread loops (its input's low two bits) + 1 times.
            writeln!(
                text,
                "    ld.global.u32 %r15, [%rd3]; and.b32 %r15, %r15, 3; mov.u32 %r12, 0;\nDLOOP{label}:"
            )
            .unwrap();
            for _ in 0..1 + rng.below(3) {
                vector_instruction(rng, text);
            }
            writeln!(
                text,
                "    add.s32 %r12, %r12, 1;\n    setp.le.u32 %p3, %r12, %r15;\n    @%p3 bra DLOOP{label};"
            )
            .unwrap();
        }
        _ => {
            let v = int_reg(rng);
            writeln!(
                text,
                "    mov.u32 %r14, sh; shl.b32 %r15, %r16, 2; add.s32 %r15, %r14, %r15;\n\
                 st.shared.u32 [%r15], {v};\n    bar.sync 0;\n\
                 ld.shared.u32 {}, [%r15+4];\n    ld.shared.u32 {}, [sh];\n    bar.sync 0;",
                int_reg(rng),
                int_reg(rng)
            )
            .unwrap();
        }
    }
}

/// Input words: small integers, NaNs, infinities, signed zeros, random bits.
fn input_word(rng: &mut Rng, i: usize) -> u32 {
    match rng.below(8) {
        0 => f32::INFINITY.to_bits(),
        6 => [0x8000_0000, 0, 0x7fc0_0001, 0xff80_0000][rng.below(4) as usize],
        7 => (-(rng.below(100) as f32) / 3.0).to_bits(),
        1 => (rng.below(200) as f32 - 100.0).to_bits(),
        2 => rng.next() as u32,
        _ => (i as u32).wrapping_mul(7) ^ rng.below(16) as u32,
    }
}

/// What a run of `kernels` random kernels saw.
#[derive(Debug, Default)]
struct Tally {
    kernels: usize,
    /// The vector planner accepted the kernel.
    planned: usize,
    /// Planned, and launched on rows that are groups of four: the launch ran the vector
    /// function.
    four_wide: usize,
    /// Of those, launched in groups of 8, 16 or 32 threads.
    wider: usize,
}

fn run(kernels: usize, seed: u64) -> Tally {
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    for case in 0..kernels {
        let blocks = [
            [32u32, 1, 1],
            [16, 4, 1],
            [8, 8, 1],
            [64, 1, 1],
            [4, 6, 1],
            [12, 2, 1],
            [20, 3, 1],
            [6, 4, 1],
            [40, 1, 1],
            [7, 5, 1],
        ];
        // Rows of four in 8 launches of 10.
        let block = blocks[rng.below(blocks.len() as u64) as usize];
        let threads_per_block = block[0] * block[1];
        let grid = 1 + rng.below(3) as u32;
        let n = (grid * threads_per_block) as usize;
        let scalar = rng.below(6) == 0;
        let text = kernel(&mut rng, threads_per_block + 1, scalar);
        let module = chevron_ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let memory = Arc::new(DeviceMemory::new(0));
        let program = Arc::new(Program::load(&module, &memory).expect("loads"));
        let handle = program.kernel("k").unwrap();
        // Groups of 4, 8, 16 or 32 threads: the widest, up to the case's, that divides the rows.
        let widest = [4u32, 8, 16, 32][case % 4];
        let group_threads = (0..4)
            .map(|i| widest >> i)
            .find(|&w| block[0].is_multiple_of(w))
            .unwrap_or(4)
            .max(4);
        let options = chevron_cpu_jit::CompileOptions {
            group_threads,
            ..Default::default()
        };
        let compiled = CompiledKernel::compile(&program, &handle, &options)
            .unwrap_or_else(|e| panic!("case {case} does not compile: {e}\n{text}"));
        tally.kernels += 1;
        if compiled.vector().is_ok() {
            tally.planned += 1;
            if block[0].is_multiple_of(4) {
                tally.four_wide += 1;
                if group_threads > 4 {
                    tally.wider += 1;
                }
            }
        } else {
            // A kernel of the subset may still leave the vector code at too many places for
            // the planner's budget of saved registers; nothing else keeps it scalar.
            let reason = compiled.vector().unwrap_err();
            assert!(
                scalar || reason.contains("places to leave the vector code"),
                "case {case} stays scalar: {reason}\n{text}"
            );
        }
        let input: Vec<u8> = (0..2 * n + 4)
            .flat_map(|i| input_word(&mut rng, i).to_le_bytes())
            .collect();
        let u = (rng.next() as u32).to_le_bytes();
        let cfg = LaunchConfig {
            grid: [grid, 1, 1],
            block,
            dynamic_shared: 0,
            threads: 1 + case % 2,
        };
        let out_bytes = 4 * (OUTPUTS_32 + 2 * OUTPUTS_64 + SCRATCH) * n;
        let mut outputs = Vec::new();
        for use_compiled in [false, true] {
            let x = memory.alloc(input.len() as u64, 256).unwrap();
            memory.write(x, &input).unwrap();
            let out = memory.alloc(out_bytes as u64, 256).unwrap();
            memory.write(out, &vec![0x5a; out_bytes]).unwrap();
            let mut p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
            p.extend(u);
            p.extend((n as u32).to_le_bytes());
            let result = if use_compiled {
                compiled.launch(&cfg, &p, &LaunchHooks::default())
            } else {
                program.launch(&handle, &cfg, &p)
            };
            result.unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
            let mut bytes = vec![0u8; out_bytes];
            memory.read(out, &mut bytes).unwrap();
            outputs.push(bytes);
        }
        if outputs[0] != outputs[1] {
            let word =
                |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
            let first = (0..out_bytes / 4)
                .find(|&i| word(&outputs[0], i) != word(&outputs[1], i))
                .unwrap();
            panic!(
                "case {case}, block {block:?}, grid {grid}: word {first} of the output \
                 (n = {n}): interpreter {:#x}, compiled {:#x}\n{text}",
                word(&outputs[0], first),
                word(&outputs[1], first)
            );
        }
    }
    println!(
        "{} random kernels, compiled bit for bit as interpreted: {} planned four-wide, {} ({:.1}%) \
         launched four or more threads at a time ({} of them 8, 16 or 32)",
        tally.kernels,
        tally.planned,
        tally.four_wide,
        100.0 * tally.four_wide as f64 / tally.kernels.max(1) as f64,
        tally.wider,
    );
    tally
}

#[test]
fn most_random_kernels_run_four_wide_and_give_the_interpreters_bits() {
    let tally = run(200, 0x243f_6a88_85a3_08d3);
    assert!(
        2 * tally.four_wide > tally.kernels,
        "only {} of {} kernels ran four threads at a time",
        tally.four_wide,
        tally.kernels
    );
    assert!(tally.planned < tally.kernels, "no kernel stayed scalar");
    assert!(
        4 * tally.wider > tally.kernels,
        "only {} of {} kernels ran in groups of 8, 16 or 32",
        tally.wider,
        tally.kernels
    );
}

/// The long run: `CHEVRON_VECTOR_FUZZ=N` kernels (2,000 by default), from a seed of
/// `CHEVRON_VECTOR_FUZZ_SEED` (default: another than the CI test's).
#[test]
#[ignore = "long: cargo test -p chevron-cpu-jit --test vector_differential -- --ignored --nocapture"]
fn thousands_of_random_kernels_give_the_interpreters_bits() {
    let count = std::env::var("CHEVRON_VECTOR_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed = std::env::var("CHEVRON_VECTOR_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x1319_8a2e_0370_7344);
    let tally = run(count, seed);
    assert!(2 * tally.four_wide > tally.kernels, "{tally:?}");
}
