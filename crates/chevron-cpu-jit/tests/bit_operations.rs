//! Integer and bit-manipulation instructions that compiled code leaves to the interpreter's
//! arithmetic (`prmt`, `shf`, `bfe`, `bfi`, `lop3`, `mul24`, `mad.hi`, `sad`, saturating adds,
//! `dp4a`, ...) or emits as shifts (`mov` packing and unpacking), against the interpreter on
//! edge values.

mod common;

use chevron_ptx::interp::LaunchHooks;
use common::{compile, config, load, read_words, HEADER};

/// Results per thread of `bits`.
const RESULTS: usize = 24;

const KERNEL: &str = r#"
// out[i * 24 + j] = the j-th result of x[i], y[i], z[i].
.visible .entry bits(.param .u64 xs, .param .u64 out)
{
    .reg .b16 %h<4>; .reg .b32 %r<40>; .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 12; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4]; ld.global.u32 %r6, [%rd4+4]; ld.global.u32 %r7, [%rd4+8];
    prmt.b32 %r10, %r5, %r6, %r7;
    prmt.b32.f4e %r11, %r5, %r6, %r7;
    shf.l.wrap.b32 %r12, %r5, %r6, %r7;
    shf.r.clamp.b32 %r13, %r5, %r6, %r7;
    bfe.u32 %r14, %r5, %r6, %r7;
    bfe.s32 %r15, %r5, 3, %r7;
    bfi.b32 %r16, %r5, %r6, %r7, 9;
    lop3.b32 %r17, %r5, %r6, %r7, 0xe8;
    mul24.lo.s32 %r18, %r5, %r6;
    mul24.hi.u32 %r19, %r5, %r6;
    mad.hi.s32 %r20, %r5, %r6, %r7;
    mad.hi.u32 %r21, %r5, %r6, %r7;
    sad.u32 %r22, %r5, %r6, %r7;
    add.sat.s32 %r23, %r5, %r6;
    sub.sat.s32 %r24, %r5, %r6;
    dp4a.s32.u32 %r25, %r5, %r6, %r7;
    dp2a.lo.u32.s32 %r26, %r5, %r6, %r7;
    mad24.lo.u32 %r27, %r5, %r6, %r7;
    mov.b64 %rd5, {%r5, %r6};
    shr.u64 %rd6, %rd5, 20;
    cvt.u32.u64 %r28, %rd6;
    mov.b64 {%r29, %r30}, %rd6;
    mov.b32 {%h1, %h2}, %r7;
    mov.b32 %r31, {%h2, %h1};
    bfind.u32 %r32, %r5;
    mul.wide.u32 %rd7, %r4, 96; add.s64 %rd8, %rd2, %rd7;
    st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r13};
    st.global.v4.u32 [%rd8+16], {%r14, %r15, %r16, %r17};
    st.global.v4.u32 [%rd8+32], {%r18, %r19, %r20, %r21};
    st.global.v4.u32 [%rd8+48], {%r22, %r23, %r24, %r25};
    st.global.v4.u32 [%rd8+64], {%r26, %r27, %r28, %r29};
    st.global.v4.u32 [%rd8+80], {%r30, %r31, %r32, %r4};
    ret;
}
"#;

/// `kernel(xs, out)` of `program` run interpreted, then compiled (the test fails if the
/// compiler refuses it), on `xs` = `bytes`: the `words` words of `out` each time.
fn both_ways(
    program: &std::sync::Arc<chevron_ptx::interp::Program>,
    kernel: &str,
    bytes: &[u8],
    words: usize,
    cfg: chevron_ptx::interp::LaunchConfig,
) -> [Vec<u32>; 2] {
    let handle = program.kernel(kernel).unwrap();
    let compiled = compile(program, kernel, true);
    let memory = program.memory();
    [false, true].map(|use_compiled| {
        let xs = memory.alloc(bytes.len() as u64, 256).unwrap();
        memory.write(xs, bytes).unwrap();
        let out = memory.alloc(4 * words as u64, 256).unwrap();
        let p: Vec<u8> = [xs, out].iter().flat_map(|v| v.to_le_bytes()).collect();
        if use_compiled {
            compiled.launch(&cfg, &p, &LaunchHooks::default()).unwrap();
        } else {
            program.launch(&handle, &cfg, &p).unwrap();
        }
        read_words(memory, out, words)
    })
}

#[test]
fn bit_operations_give_the_interpreters_bits() {
    let (_memory, program) = load(&format!("{HEADER}{KERNEL}"));
    let edges = [
        0u32,
        1,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        31,
        32,
        33,
        0xff,
        0x7654_3210,
    ];
    let threads = 256usize;
    let inputs: Vec<u32> = (0..3 * threads as u32)
        .map(|i| {
            if i % 3 == 2 && i % 7 < 3 {
                // Small third operands (positions, lengths, shift counts), edges included.
                i % 40
            } else if i % 4 == 0 {
                edges[(i / 4) as usize % edges.len()]
            } else {
                i.wrapping_mul(2_654_435_761) ^ (i << 13)
            }
        })
        .collect();
    let bytes: Vec<u8> = inputs.iter().flat_map(|w| w.to_le_bytes()).collect();
    let results = both_ways(
        &program,
        "bits",
        &bytes,
        RESULTS * threads,
        config(2, 128, 2),
    );
    assert_eq!(results[0], results[1]);
    // A few results by hand: thread 0's operands are (0, x1, x2) with x2 small.
    let word = |t: usize, j: usize| results[1][t * RESULTS + j];
    let (x, y) = (inputs[3], inputs[4]);
    assert_eq!(word(1, 23), 1, "the thread's own index");
    assert_eq!(
        word(1, 18),
        (((u64::from(y) << 32) | u64::from(x)) >> 20) as u32,
        "mov packs the low word first"
    );
    assert_eq!(
        word(1, 7),
        (x & y) | (x & inputs[5]) | (y & inputs[5]),
        "lop3 0xe8 is majority"
    );
}

/// `cvt.pack.sat` of integers: compiled (the interpreter's arithmetic, called from generated
/// code) and interpreted, the same words; the 8-bit form's third operand shifted in above.
const PACKS: &str = r#"
.visible .entry packs(.param .u64 xs, .param .u64 out)
{
    .reg .b32 %r<12>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [xs]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12; add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4]; ld.global.u32 %r3, [%rd4+4]; ld.global.u32 %r4, [%rd4+8];
    cvt.pack.sat.u16.s32.b32 %r5, %r2, %r3;
    cvt.pack.sat.s16.s32.b32 %r6, %r2, %r3;
    cvt.pack.sat.u8.s32.b32 %r7, %r2, %r3, %r4;
    cvt.pack.sat.s8.s32.b32 %r8, %r2, %r3, %r4;
    mul.wide.u32 %rd3, %r1, 16; add.s64 %rd5, %rd2, %rd3;
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    ret;
}
"#;

#[test]
fn cvt_pack_sat_compiles_to_the_interpreters_bits() {
    let (_memory, program) = load(&format!("{HEADER}{PACKS}"));
    let threads = 128usize;
    let inputs: Vec<u32> = (0..3 * threads as u32)
        .map(|i| match i % 5 {
            0 => (i * 37) as i32 as u32,
            1 => (-(i as i32) * 300) as u32,
            2 => [0, u32::MAX, 0x8000_0000, 0x7fff_ffff, 65_536][(i as usize / 5) % 5],
            _ => i.wrapping_mul(2_654_435_761),
        })
        .collect();
    let bytes: Vec<u8> = inputs.iter().flat_map(|w| w.to_le_bytes()).collect();
    let results = both_ways(
        &program,
        "packs",
        &bytes,
        4 * threads,
        config(1, threads as u32, 1),
    );
    assert_eq!(results[0], results[1]);
    // Thread 0: a = 0, b = -300, c = inputs[2] (0): u16 0:0, s16 0:-300, u8 c:0:0, s8 c:0:-128.
    assert_eq!(&results[1][..4], [0, 0xfed4, 0, 0x80]);
}
