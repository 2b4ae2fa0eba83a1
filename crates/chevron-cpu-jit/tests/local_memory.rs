//! Kernels with local variables (a stack frame) compiled, against the interpreter: arrays
//! indexed by data, the frame clang emits (`__local_depot`, generic addresses through
//! `cvta.local`), frames kept across barriers, never-written slots (zero, as the interpreter's),
//! and the interpreter's reports for an access past the frame and a misaligned one.

mod common;

use chevron_cpu_jit::CompiledKernel;
use chevron_ptx::interp::{LaunchConfig, LaunchHooks};
use common::{config, read_words, Setup, HEADER};

const KERNELS: &str = r#"
// A 16-word scratch array per thread, filled from the thread's index, read back at indices
// taken from the data (after a barrier, so the frame outlives a phase), plus a slot never
// written. out[i] = sum of four reads + the unwritten slot.
.visible .entry scratch(.param .u64 x, .param .u64 out)
{
    .local .align 4 .b8 buf[72];
    .reg .pred %p<2>; .reg .b32 %r<16>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mov.u64 %rd3, buf;
    mov.u32 %r5, 0;
FILL:
    mad.lo.s32 %r6, %r4, 31, %r5;
    mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd3, %rd4;
    st.local.u32 [%rd5], %r6;
    add.s32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 16;
    @%p1 bra FILL;
    st.local.u32 [buf+64], %r4;
    bar.sync 0;
    mul.wide.u32 %rd6, %r4, 4; add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r7, [%rd7];
    mov.u32 %r8, 0; mov.u32 %r9, 0;
READ:
    shr.u32 %r10, %r7, %r9; and.b32 %r10, %r10, 15;
    mul.wide.u32 %rd8, %r10, 4; add.s64 %rd9, %rd3, %rd8;
    ld.local.u32 %r11, [%rd9];
    add.s32 %r8, %r8, %r11;
    add.s32 %r9, %r9, 4;
    setp.lt.u32 %p1, %r9, 16;
    @%p1 bra READ;
    ld.local.u32 %r12, [buf+68];
    ld.local.u32 %r13, [buf+64];
    add.s32 %r8, %r8, %r12; xor.b32 %r8, %r8, %r13;
    add.s64 %rd10, %rd2, %rd6;
    st.global.u32 [%rd10], %r8;
    ret;
}

// The frame as clang emits it: the depot's local address, made generic, used through generic
// loads and stores, a 64-bit slot and a vector store, and the generic address made local again.
.visible .entry depot(.param .u64 out)
{
    .local .align 8 .b8 __local_depot1[32];
    .reg .b64 %SP; .reg .b64 %SPL;
    .reg .b32 %r<8>; .reg .b64 %rd<10>;
    mov.u64 %SPL, __local_depot1;
    cvta.local.u64 %SP, %SPL;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    add.u64 %rd2, %SP, 0;
    st.u32 [%rd2], %r1;
    mul.wide.u32 %rd3, %r1, 3;
    st.u64 [%SP+8], %rd3;
    add.s32 %r2, %r1, 100; add.s32 %r3, %r1, 200;
    st.v2.u32 [%SP+16], {%r2, %r3};
    cvta.to.local.u64 %rd4, %rd2;
    ld.local.u32 %r4, [%rd4];
    ld.local.u64 %rd5, [%SPL+8];
    ld.local.v2.u32 {%r5, %r6}, [%SPL+16];
    ld.u32 %r7, [%SP+24];
    cvt.u32.u64 %r2, %rd5;
    add.s32 %r4, %r4, %r2; add.s32 %r4, %r4, %r5; add.s32 %r4, %r4, %r6; add.s32 %r4, %r4, %r7;
    mul.wide.u32 %rd6, %r1, 4; add.s64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r4;
    ret;
}

// Reads word `index` of a 4-word local array (past its end for index >= 4), or at a byte
// offset that may be misaligned.
.visible .entry local_at(.param .u64 out, .param .u32 index, .param .u32 byte)
{
    .local .align 4 .b8 arr[16];
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [index]; ld.param.u32 %r2, [byte];
    mov.u32 %r3, %tid.x;
    st.local.u32 [arr], %r3; st.local.u32 [arr+12], %r3;
    mov.u64 %rd2, arr;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
    cvt.u64.u32 %rd5, %r2; add.s64 %rd4, %rd4, %rd5;
    setp.eq.u32 %p1, %r3, 7;
    @%p1 ld.local.u32 %r4, [%rd4];
    mul.wide.u32 %rd6, %r3, 4; add.s64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r4;
    ret;
}

// A struct passed by value, read through its address as clang -O0 does, with `.param` and
// generic loads; `count` words are summed (reads past the parameters for large counts).
.visible .entry byval(.param .u64 out, .param .align 8 .b8 s[16], .param .u32 count)
{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [count];
    mov.b64 %rd2, s;
    ld.param.b32 %r2, [%rd2];
    ld.param.b64 %rd3, [%rd2+8];
    ld.u32 %r3, [%rd2+4];
    cvt.u32.u64 %r4, %rd3;
    add.s32 %r2, %r2, %r3; add.s32 %r2, %r2, %r4;
    mov.u32 %r5, 0; mov.u32 %r6, 0;
SUM:
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd2, %rd4;
    ld.param.u32 %r7, [%rd5];
    add.s32 %r6, %r6, %r7;
    add.s32 %r5, %r5, 1;
    bra SUM;
DONE:
    st.global.v2.u32 [%rd1], {%r2, %r6};
    ret;
}
"#;

fn setup() -> Setup {
    Setup::of(&format!("{HEADER}{KERNELS}"))
}

fn compile(s: &Setup, kernel: &str, checks: bool) -> CompiledKernel {
    common::compile(&s.program, kernel, checks)
}

/// `kernel` interpreted and compiled (checks on, then off) on fresh buffers: the words of
/// `out` each time. `params` builds the parameters from the input and output addresses.
fn runs(
    s: &Setup,
    kernel: &str,
    cfg: &LaunchConfig,
    input: &[u32],
    out_words: usize,
    params: impl Fn(u64, u64) -> Vec<u8>,
) -> Vec<Vec<u32>> {
    let handle = s.program.kernel(kernel).unwrap();
    let compiled = [compile(s, kernel, true), compile(s, kernel, false)];
    let run = |which: Option<&CompiledKernel>| {
        let x = s.memory.alloc(4 * input.len().max(1) as u64, 256).unwrap();
        let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
        s.memory.write(x, &bytes).unwrap();
        let out = s.memory.alloc(4 * out_words as u64, 256).unwrap();
        s.memory.write(out, &vec![0xee; 4 * out_words]).unwrap();
        let p = params(x, out);
        match which {
            Some(compiled) => compiled.launch(cfg, &p, &LaunchHooks::default()).unwrap(),
            None => s.program.launch(&handle, cfg, &p).unwrap(),
        };
        read_words(&s.memory, out, out_words)
    };
    vec![run(None), run(Some(&compiled[0])), run(Some(&compiled[1]))]
}

fn pointers(x: u64, out: u64) -> Vec<u8> {
    [x, out].iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn a_scratch_array_indexed_by_data_survives_a_barrier() {
    let s = setup();
    let n = 4 * 96;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let results = runs(&s, "scratch", &config(4, 96, 2), &input, n, pointers);
    let want: Vec<u32> = (0..n as u32)
        .map(|i| {
            let word = |k: u32| i.wrapping_mul(31).wrapping_add(k);
            let sum = (0..4).fold(0u32, |acc, j| {
                acc.wrapping_add(word((input[i as usize] >> (4 * j)) & 15))
            });
            // The slot at +68 was never written: zero, as the interpreter's fresh stack.
            sum ^ i
        })
        .collect();
    assert_eq!(results[0], want, "the interpreter computes the sums");
    assert_eq!(results[1], want, "compiled, checks on");
    assert_eq!(results[2], want, "compiled, checks off");
}

#[test]
fn clangs_depot_through_generic_addresses_matches() {
    let s = setup();
    let results = runs(&s, "depot", &config(2, 64, 2), &[], 64, |_, out| {
        out.to_le_bytes().to_vec()
    });
    // Only the first block's outputs: both blocks write the same 64 words.
    let want: Vec<u32> = (0..64u32)
        .map(|t| t + 3 * t + (t + 100) + (t + 200))
        .collect();
    for (run, got) in ["interpreted", "compiled", "unchecked"]
        .iter()
        .zip(&results)
    {
        assert_eq!(got, &want, "{run}");
    }
}

#[test]
fn local_kernels_run_one_thread_at_a_time() {
    let s = setup();
    for kernel in ["scratch", "depot", "local_at"] {
        let compiled = compile(&s, kernel, true);
        assert!(compiled.vector().is_err(), "{kernel} has no four-wide form");
    }
}

#[test]
fn past_the_frame_and_misaligned_give_the_interpreters_reports() {
    let s = setup();
    let handle = s.program.kernel("local_at").unwrap();
    let compiled = compile(&s, "local_at", true);
    let out = s.memory.alloc(4 * 32, 256).unwrap();
    let cfg = config(1, 32, 2);
    // (index, byte): inside; one word past the end; far past; misaligned inside.
    for (index, byte) in [(3u32, 0u32), (4, 0), (1000, 0), (1, 2)] {
        let mut p = out.to_le_bytes().to_vec();
        p.extend(index.to_le_bytes());
        p.extend(byte.to_le_bytes());
        let interpreted = s.program.launch(&handle, &cfg, &p);
        let from_compiled = compiled.launch(&cfg, &p, &LaunchHooks::default());
        match (interpreted, from_compiled) {
            (Ok(_), Ok(_)) => assert_eq!((index, byte), (3, 0), "only the first is in bounds"),
            (Err(want), Err(got)) => {
                let want = want.to_string();
                assert_eq!(want, got.to_string(), "index {index}, byte {byte}");
                assert!(want.contains("local_at"), "{want}");
            }
            (want, got) => panic!("index {index}, byte {byte}: {want:?} against {got:?}"),
        }
    }
}

#[test]
fn a_struct_parameter_read_through_its_address_matches() {
    let s = setup();
    let handle = s.program.kernel("byval").unwrap();
    let compiled = compile(&s, "byval", true);
    let out = s.memory.alloc(8, 256).unwrap();
    let cfg = config(1, 32, 1);
    // 32 bytes of parameters: `out`, the struct's four words, `count`, padding. The sum starts
    // at the struct (byte 8): up to 6 words fit.
    let mut faults = 0;
    for count in [0u32, 4, 6, 7, 8, 9] {
        let mut p = out.to_le_bytes().to_vec();
        p.extend([11u32, 22, 33, 44].iter().flat_map(|w| w.to_le_bytes()));
        p.extend(count.to_le_bytes());
        p.extend([0u8; 4]);
        let want = s
            .program
            .launch(&handle, &cfg, &p)
            .map_err(|f| f.to_string());
        let mut first = vec![0u8; 8];
        s.memory.read(out, &mut first).unwrap();
        let got = compiled
            .launch(&cfg, &p, &LaunchHooks::default())
            .map_err(|f| f.to_string());
        let second = read_words(&s.memory, out, 2);
        assert_eq!(
            want,
            got.clone().map(|_| want.clone().unwrap()),
            "count {count}"
        );
        if got.is_ok() {
            let first: Vec<u32> = common::words(&first);
            assert_eq!(first, second, "count {count}");
            assert_eq!(second[0], 11 + 22 + 33, "count {count}");
        } else {
            faults += 1;
        }
    }
    assert_eq!(faults, 3, "7, 8 and 9 words reach past the parameters");
}
