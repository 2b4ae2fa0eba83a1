//! Random kernels of the four-wide subset, compiled against interpreted: integer, 64-bit and
//! f32 arithmetic, guarded instructions and forward branches on data (groups part), a counted
//! loop (with a shared load checked at its entry), shared memory across a barrier; launched on blocks whose rows are groups of four and
//! on blocks whose rows are not, in groups of 4, 8, 16 and 32 threads. Every output bit must be
//! the interpreter's.

mod common;

use std::fmt::Write;
use std::sync::Arc;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{DeviceMemory, LaunchConfig, LaunchHooks, Program};
use common::Rng;

/// Results per thread: `%r5..%r13` and `%f1..%f7`.
const OUTPUTS: usize = 16;

/// A 32-bit integer operand: a register or an immediate.
fn int_src(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!("{}", rng.below(1 << 20) as i64 - (1 << 19)),
        1 => "%r0".into(),
        2 => "%r4".into(),
        _ => format!("%r{}", 5 + rng.below(9)),
    }
}

/// A register instructions write: `%r5..%r11` (`%r12` counts loops, `%r13` is read only).
fn int_reg(rng: &mut Rng) -> String {
    format!("%r{}", 5 + rng.below(7))
}

fn float_reg(rng: &mut Rng) -> String {
    format!("%f{}", 1 + rng.below(7))
}

/// One random instruction of the body (no labels).
fn instruction(rng: &mut Rng, text: &mut String) {
    let d = int_reg(rng);
    match rng.below(15) {
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
            ]);
            let (a, b) = (int_src(rng), int_src(rng));
            writeln!(text, "    {op} {d}, {a}, {b};").unwrap();
        }
        4 => {
            let op = rng.pick(&["shl.b32", "shr.s32", "shr.u32"]);
            let a = int_src(rng);
            writeln!(text, "    {op} {d}, {a}, {};", rng.below(40)).unwrap();
        }
        5 => {
            let (a, b, c) = (int_src(rng), int_src(rng), int_src(rng));
            writeln!(text, "    mad.lo.s32 {d}, {a}, {b}, {c};").unwrap();
        }
        6 => {
            let cmp = rng.pick(&["lt", "le", "gt", "ge", "eq", "ne"]);
            let ty = rng.pick(&["s32", "u32"]);
            let p = rng.below(3);
            let (a, b) = (int_src(rng), int_src(rng));
            let (x, y) = (int_src(rng), int_src(rng));
            writeln!(text, "    setp.{cmp}.{ty} %p{p}, {a}, {b};").unwrap();
            writeln!(text, "    selp.b32 {d}, {x}, {y}, %p{p};").unwrap();
        }
        7 => {
            // 64-bit values, observed through a compare.
            let (a, b) = (int_reg(rng), int_src(rng));
            let ty = rng.pick(&["s32", "u32"]);
            writeln!(text, "    mul.wide.{ty} %rd5, {a}, {b};").unwrap();
            let other = rng.pick(&["%rd2", "%rd11", "%rd7"]);
            writeln!(text, "    add.s64 %rd6, %rd5, {other};").unwrap();
            writeln!(text, "    shr.s64 %rd6, %rd6, {};", rng.below(64)).unwrap();
            writeln!(text, "    cvt.s64.s32 %rd7, {};", int_reg(rng)).unwrap();
            writeln!(text, "    setp.lt.s64 %p2, %rd6, %rd7;").unwrap();
            writeln!(text, "    selp.b32 {d}, 7, {}, %p2;", int_reg(rng)).unwrap();
        }
        8..=9 => {
            let f = float_reg(rng);
            let (a, b, c) = (float_reg(rng), float_reg(rng), float_reg(rng));
            match rng.below(6) {
                0 => writeln!(text, "    add.rn.f32 {f}, {a}, {b};").unwrap(),
                1 => writeln!(text, "    sub.rn.f32 {f}, {a}, {b};").unwrap(),
                2 => writeln!(text, "    mul.rn.f32 {f}, {a}, {b};").unwrap(),
                3 => writeln!(text, "    min.f32 {f}, {a}, {b};").unwrap(),
                4 => writeln!(text, "    max.f32 {f}, {a}, {b};").unwrap(),
                _ => writeln!(text, "    fma.rn.f32 {f}, {a}, {b}, {c};").unwrap(),
            }
        }
        10 => {
            let f = float_reg(rng);
            writeln!(text, "    mov.b32 {d}, {f};").unwrap();
        }
        12 => {
            // Float compares (NaN and infinity among the inputs), combined predicates.
            let cmp = rng.pick(&[
                "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                "num", "nan",
            ]);
            let (a, b) = (float_reg(rng), float_reg(rng));
            writeln!(text, "    setp.{cmp}.f32 %p1, {a}, {b};").unwrap();
            let logic = rng.pick(&["and", "or", "xor"]);
            writeln!(text, "    {logic}.pred %p1, %p1, %p0;").unwrap();
            let (x, y) = (int_src(rng), int_src(rng));
            writeln!(text, "    selp.b32 {d}, {x}, {y}, %p1;").unwrap();
        }
        13 => {
            let ty = rng.pick(&["s32", "u32"]);
            let f = float_reg(rng);
            writeln!(text, "    cvt.rn.f32.{ty} {f}, {};", int_src(rng)).unwrap();
        }
        14 => {
            let ty = rng.pick(&["s32", "u32"]);
            let rnd = rng.pick(&["rzi.", ""]);
            writeln!(text, "    cvt.{rnd}{ty}.f32 {d}, {};", float_reg(rng)).unwrap();
        }
        _ => {
            // A guarded instruction on a predicate of the data.
            let (a, b) = (int_reg(rng), int_src(rng));
            let neg = if rng.below(2) == 0 { "!" } else { "" };
            writeln!(text, "    setp.lt.s32 %p0, {a}, {b};").unwrap();
            writeln!(text, "    @{neg}%p0 add.s32 {d}, {d}, {};", int_src(rng)).unwrap();
        }
    }
}

/// A random kernel `k` over `x` (inputs, 2 words per thread) into `out` (OUTPUTS words per
/// thread, output-major), `n` threads in all.
fn kernel(rng: &mut Rng, shared_words: u32) -> String {
    let mut text = String::new();
    // In half the kernels `ro` is filled first (ro[i] = 3i + 1 by thread i of the block, of at
    // most 64, then a barrier) and only read after, so its loads race with no store.
    let ro = rng.below(2) == 0;
    writeln!(
        text,
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 x, .param .u64 out, .param .u32 u, .param .u32 n)\n{{\n\
         .shared .align 4 .b32 sh[{shared_words}];\n\
         .shared .align 4 .b32 ro[64];\n\
         .reg .pred %p<4>; .reg .b32 %r<20>; .reg .f32 %f<8>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd0, [x]; ld.param.u64 %rd1, [out]; ld.param.u32 %r0, [u];\n\
         mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x;\n\
         mad.lo.s32 %r16, %r2, %r3, %r1;\n\
         mov.u32 %r17, %ctaid.x; mov.u32 %r18, %ntid.y; mul.lo.s32 %r18, %r18, %r3;\n\
         mad.lo.s32 %r4, %r17, %r18, %r16;\n\
         mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd0, %rd2;\n\
         ld.param.u32 %r19, [n]; mul.wide.u32 %rd4, %r19, 4;\n\
         ld.global.u32 %r5, [%rd3]; add.s64 %rd8, %rd3, %rd4; ld.global.u32 %r6, [%rd8];\n\
         ld.global.f32 %f1, [%rd3]; ld.global.f32 %f2, [%rd8];\n\
         ld.global.u32 %r7, [%rd0];\n\
         mul.wide.u32 %rd10, %r4, 8; add.s64 %rd11, %rd0, %rd10; ld.global.u64 %rd11, [%rd11];\n\
         ld.global.u64 %rd7, [%rd0+8];\n\
         mov.u32 %r8, %r1; mov.u32 %r9, 3; mov.u32 %r10, %r0; mov.u32 %r11, %r4;\n\
         mov.u32 %r13, %r2;\n\
         mov.f32 %f3, 0f3FC00000; mov.f32 %f4, 0f7F800000; mov.f32 %f5, %f1; mov.f32 %f6, %f2;\n\
         mov.f32 %f7, 0fBF000000;"
    )
    .unwrap();
    if ro {
        writeln!(
            text,
            "    mad.lo.s32 %r15, %r16, 3, 1; shl.b32 %r14, %r16, 2;\n\
             mov.u32 %r12, ro; add.s32 %r14, %r12, %r14; st.shared.u32 [%r14], %r15;\n\
             bar.sync 0;"
        )
        .unwrap();
    }
    for label in 0..3 {
        for _ in 0..6 + rng.below(6) {
            instruction(rng, &mut text);
        }
        match rng.below(3) {
            0 => {
                // A forward branch on the data.
                let (a, b) = (int_reg(rng), int_src(rng));
                writeln!(
                    text,
                    "    setp.ge.u32 %p1, {a}, {b};\n    @%p1 bra SKIP{label};"
                )
                .unwrap();
                for _ in 0..1 + rng.below(4) {
                    instruction(rng, &mut text);
                }
                writeln!(text, "SKIP{label}:").unwrap();
            }
            1 => {
                // A counted loop, uniform in every group; where `ro` was filled, in half of
                // them a shared load through a register the loop raises (checked once at the
                // loop's entry).
                let shared = ro && rng.below(2) == 0;
                if shared {
                    // ro[5..8) (one element for the four threads) or ro[tid.x..tid.x + 3)
                    // (four consecutive ones).
                    let start = if rng.below(2) == 0 { "5" } else { "%r1" };
                    writeln!(
                        text,
                        "    mov.u32 %r14, ro; mov.u32 %r15, {start}; shl.b32 %r15, %r15, 2;\n\
                         add.s32 %r15, %r14, %r15;"
                    )
                    .unwrap();
                }
                writeln!(text, "    mov.u32 %r12, 0;\nLOOP{label}:").unwrap();
                if shared {
                    let d = int_reg(rng);
                    writeln!(
                        text,
                        "    ld.shared.u32 {d}, [%r15];\n    add.s32 %r15, %r15, 4;"
                    )
                    .unwrap();
                }
                for _ in 0..1 + rng.below(3) {
                    instruction(rng, &mut text);
                }
                writeln!(
                    text,
                    "    add.s32 %r12, %r12, 1;\n    setp.lt.u32 %p3, %r12, 3;\n    @%p3 bra LOOP{label};"
                )
                .unwrap();
            }
            _ => {
                // Through shared memory: each thread's value, a barrier, the next thread's and
                // the first one's.
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
    // Outputs: out[j * n + i].
    writeln!(text, "    add.s64 %rd9, %rd1, %rd2;").unwrap();
    for j in 0..OUTPUTS {
        let src = if j < 9 {
            format!("%r{}", 5 + j)
        } else {
            format!("%f{}", j - 8)
        };
        let ty = if j < 9 { "u32" } else { "f32" };
        writeln!(
            text,
            "    st.global.{ty} [%rd9], {src}; add.s64 %rd9, %rd9, %rd4;"
        )
        .unwrap();
    }
    // And a 64-bit one: out[16 n] as u64, element i.
    writeln!(
        text,
        "    mul.wide.u32 %rd9, %r19, 64; add.s64 %rd9, %rd1, %rd9; add.s64 %rd9, %rd9, %rd10;\n\
         st.global.u64 [%rd9], %rd6;"
    )
    .unwrap();
    writeln!(text, "    ret;\n}}").unwrap();
    text
}

#[test]
fn random_kernels_four_threads_at_a_time_give_the_interpreters_bits() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut vectorized = 0;
    for case in 0..120 {
        let blocks = [[32u32, 1, 1], [16, 4, 1], [12, 2, 1], [8, 8, 1]];
        let block = blocks[case % blocks.len()];
        let threads_per_block = block[0] * block[1];
        let grid = 3u32;
        let n = (grid * threads_per_block) as usize;
        let text = kernel(&mut rng, threads_per_block + 1);
        let module = chevron_ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let memory = Arc::new(DeviceMemory::new(0));
        let program = Arc::new(Program::load(&module, &memory).expect("loads"));
        let handle = program.kernel("k").unwrap();
        // Groups of 4, 8, 16 or 32 threads; rows the group does not divide (12 threads in
        // groups of 8) run one thread at a time.
        let options = chevron_cpu_jit::CompileOptions {
            group_threads: [4, 8, 16, 32][(case / 4) % 4],
            ..Default::default()
        };
        let compiled = CompiledKernel::compile(&program, &handle, &options).expect("compiles");
        assert_eq!(compiled.vector(), Ok(()), "case {case}:\n{text}");
        if block[0].is_multiple_of(options.group_threads) {
            vectorized += 1;
        }
        let input: Vec<u8> = (0..2 * n)
            .flat_map(|i| {
                let v = match rng.below(8) {
                    0 => f32::INFINITY.to_bits(),
                    6 => [0x8000_0000, 0, 0x7fc0_0001, 0xff80_0000][rng.below(4) as usize],
                    7 => (-(rng.below(100) as f32) / 3.0).to_bits(),
                    1 => (rng.below(200) as f32 - 100.0).to_bits(),
                    2 => rng.next() as u32,
                    _ => (i as u32).wrapping_mul(7) ^ rng.below(16) as u32,
                };
                v.to_le_bytes()
            })
            .collect();
        let u = (rng.next() as u32).to_le_bytes();
        let cfg = LaunchConfig {
            grid: [grid, 1, 1],
            block,
            dynamic_shared: 0,
            threads: 1 + case % 2,
        };
        let mut outputs = Vec::new();
        for use_compiled in [false, true] {
            let x = memory.alloc(input.len() as u64, 256).unwrap();
            memory.write(x, &input).unwrap();
            let out = memory.alloc(4 * ((OUTPUTS + 2) * n) as u64, 256).unwrap();
            let mut p: Vec<u8> = [x, out].iter().flat_map(|v| v.to_le_bytes()).collect();
            p.extend(u);
            p.extend((n as u32).to_le_bytes());
            if use_compiled {
                compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
            } else {
                program.launch(&handle, &cfg, &p).unwrap();
            }
            let mut bytes = vec![0u8; 4 * (OUTPUTS + 2) * n];
            memory.read(out, &mut bytes).unwrap();
            outputs.push(bytes);
        }
        if outputs[0] != outputs[1] {
            let word =
                |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
            let first = (0..(OUTPUTS + 2) * n)
                .find(|&i| word(&outputs[0], i) != word(&outputs[1], i))
                .unwrap();
            panic!(
                "case {case}, block {block:?}: output {} of thread {}: interpreter {:#x}, compiled {:#x}\n{text}",
                first / n,
                first % n,
                word(&outputs[0], first),
                word(&outputs[1], first)
            );
        }
    }
    assert!(
        vectorized >= 20,
        "{vectorized} cases ran in groups of threads"
    );
}
