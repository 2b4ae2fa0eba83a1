//! Instructions without a form of the vector code's own (`src/vector/evaluated.rs`): each
//! thread's value from the interpreter's arithmetic, one call per group, in groups of 4, 8,
//! 16 and 32 threads against the interpreter. No group leaves the vector code for them, and
//! `div.rn.f32`/`sqrt.rn.f32`, which have forms of their own, give the interpreter's bits.

mod common;

use common::{config, Setup, GROUPS, HEADER};

/// Thread i reads x = in[2i], y = in[2i+1] (f32 bits) and writes 24 words at out[24i..]:
/// x/y, √x, (f64) x/y (two words), cvt.rni.s32 x, ex2.approx.ftz x, add.ftz x+y, the signed
/// quotient of the bits, popc of the 64-bit pair, the ftz compare's predicate and its
/// negation, a uniform f64 quotient of the block size narrowed, −x, |y|, 1/y, x saturated,
/// floor(y) ^ ceil(x) as integers, fma.rm(x, y, |y|), the thread's lane, the f64 quotient's
/// halves swapped by unpacking and packing (xor a uniform pair), and x's halves swapped.
const KERNEL: &str = r"
.visible .entry lanes(.param .u64 x, .param .u64 out)
{
    .reg .pred %p<4>; .reg .b16 %h<4>; .reg .b32 %r<24>; .reg .f32 %f<12>; .reg .b64 %rd<16>; .reg .f64 %fd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 8; add.s64 %rd4, %rd1, %rd3;
    ld.global.f32 %f1, [%rd4]; ld.global.f32 %f2, [%rd4+4];
    mul.wide.u32 %rd5, %r4, 96; add.s64 %rd6, %rd2, %rd5;
    div.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd6], %f3;
    sqrt.rn.f32 %f4, %f1;
    st.global.f32 [%rd6+4], %f4;
    cvt.f64.f32 %fd1, %f1; cvt.f64.f32 %fd2, %f2;
    div.rn.f64 %fd3, %fd1, %fd2;
    mov.b64 %rd7, %fd3;
    st.global.u64 [%rd6+8], %rd7;
    cvt.rni.s32.f32 %r5, %f1;
    st.global.u32 [%rd6+16], %r5;
    ex2.approx.ftz.f32 %f5, %f1;
    st.global.f32 [%rd6+20], %f5;
    add.ftz.f32 %f6, %f1, %f2;
    st.global.f32 [%rd6+24], %f6;
    mov.b32 %r6, %f1; mov.b32 %r7, %f2;
    div.s32 %r8, %r6, %r7;
    st.global.u32 [%rd6+28], %r8;
    ld.global.u64 %rd8, [%rd4];
    popc.b64 %r9, %rd8;
    st.global.u32 [%rd6+32], %r9;
    setp.lt.ftz.f32 %p1|%p2, %f1, %f2;
    selp.u32 %r10, 7, 9, %p1;
    selp.u32 %r11, 70, 90, %p2;
    add.u32 %r12, %r10, %r11;
    st.global.u32 [%rd6+36], %r12;
    cvt.rn.f64.u32 %fd4, %r3;
    div.rn.f64 %fd5, %fd4, 0d4008000000000000;
    cvt.rn.f32.f64 %f7, %fd5;
    st.global.f32 [%rd6+40], %f7;
    neg.f32 %f8, %f1;
    st.global.f32 [%rd6+44], %f8;
    abs.f32 %f9, %f2;
    st.global.f32 [%rd6+48], %f9;
    rcp.rn.f32 %f10, %f2;
    st.global.f32 [%rd6+52], %f10;
    cvt.sat.f32.f32 %f11, %f1;
    st.global.f32 [%rd6+56], %f11;
    cvt.rmi.s32.f32 %r13, %f2;
    cvt.rpi.s32.f32 %r14, %f1;
    xor.b32 %r15, %r13, %r14;
    st.global.u32 [%rd6+60], %r15;
    fma.rm.f32 %f8, %f1, %f2, %f9;
    st.global.f32 [%rd6+64], %f8;
    mov.u32 %r16, %laneid;
    st.global.u32 [%rd6+68], %r16;
    mov.b64 {%r17, %r18}, %fd3;
    mov.b64 %rd9, {%r18, %r17};
    mov.b64 %rd10, {%r3, %r2};
    xor.b64 %rd11, %rd9, %rd10;
    st.global.u64 [%rd6+72], %rd11;
    mov.b32 {%h1, %h2}, %r6;
    mov.b32 %r19, {%h2, %h1};
    st.global.u32 [%rd6+80], %r19;
    ret;
}
";

/// Float bits worth comparing: zeros, subnormals, infinities, NaNs, ones, large and random.
fn inputs(threads: u32) -> Vec<u32> {
    let special = [
        0u32,
        0x8000_0000,
        0x0000_0001,
        0x807f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffa0_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x4b00_0001,
        0x7f7f_ffff,
        0x3fc0_0000,
        0x42f6_e979,
        0xc2f6_e979,
        0x0080_0000,
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..2 * threads as usize)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if i % 3 == 0 {
                special[(state % special.len() as u64) as usize]
            } else {
                (state >> 17) as u32
            }
        })
        .collect()
}

#[test]
fn evaluated_instructions_run_in_every_group_width_with_the_interpreter_s_bits() {
    let setup = Setup::of(&format!("{HEADER}{KERNEL}"));
    let handle = setup.program.kernel("lanes").unwrap();
    let threads = 4 * 64u32;
    let input = common::le_bytes(&inputs(threads));
    let cfg = config(4, 64, 1);
    let out_bytes = 96 * threads as usize;
    let interpreted = setup.run_in_out((&handle, None), &cfg, &input, out_bytes, &[]);
    // The oracle computes something: quotients differ from thread to thread.
    let quotients: std::collections::BTreeSet<u32> = interpreted.chunks(24).map(|t| t[2]).collect();
    assert!(quotients.len() > threads as usize / 2);
    for width in GROUPS {
        let compiled = common::compile_grouped(&setup.program, "lanes", width);
        let got = setup.run_in_out((&handle, Some(&compiled)), &cfg, &input, out_bytes, &[]);
        for (t, (g, want)) in got.chunks(24).zip(interpreted.chunks(24)).enumerate() {
            assert_eq!(g, want, "groups of {width}, thread {t}");
        }
        common::assert_stayed_four_wide(&compiled, width);
    }
}
