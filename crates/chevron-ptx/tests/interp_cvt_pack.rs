//! `cvt.pack.sat` of integers (`.u16`/`.s16` pairs, `.u8`/`.s8` pairs with a third word shifted
//! in above them): each part saturated to its type, against a model of the PTX ISA's
//! definition; a kernel with a malformed form fails its launch, naming the instruction.

mod interp_common;

use interp_common::*;

const KERNEL: &str = r#"
.version 8.0
.target sm_80
.address_size 64

.visible .entry packs(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd4+4];
    ld.global.u32 %r4, [%rd4+8];
    cvt.pack.sat.u16.s32.b32 %r5, %r2, %r3;
    cvt.pack.sat.s16.s32.b32 %r6, %r2, %r3;
    cvt.pack.sat.u8.s32.b32 %r7, %r2, %r3, %r4;
    cvt.pack.sat.s8.s32.b32 %r8, %r2, %r3, %r4;
    cvt.pack.sat.s8.s32.b32 %r9, -300, 5, %r8;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    st.global.u32 [%rd5+16], %r9;
    ret;
}
"#;

/// The PTX ISA's definition, written out: each of `a` and `b` clamped to the type's range,
/// `d = c:a:b` from the top.
fn model(bits: u32, signed: bool, a: i32, b: i32, c: u32) -> u32 {
    let (min, max) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let mut d = 0u64;
    for (i, x) in [b, a].into_iter().enumerate() {
        let part = (i64::from(x).clamp(min, max) as u64) & ((1 << bits) - 1);
        d |= part << (i as u32 * bits);
    }
    if bits == 8 {
        d |= u64::from(c) << 16;
    }
    d as u32
}

#[test]
fn cvt_pack_sat_packs_saturated_integers() {
    let (memory, program) = load(KERNEL);
    let values = [
        0i32,
        1,
        -1,
        127,
        128,
        -128,
        -129,
        255,
        256,
        32_767,
        32_768,
        -32_768,
        -32_769,
        65_535,
        65_536,
        i32::MIN,
        i32::MAX,
        1000,
        -1000,
    ];
    let threads = 64u32;
    let mut input = Vec::new();
    for t in 0..threads as usize {
        let a = values[t % values.len()];
        let b = values[(t * 7 + 3) % values.len()];
        input.extend([a as u32, b as u32, 0x9876_5432u32.rotate_left(t as u32)]);
    }
    let din = upload_u32(&memory, &input);
    let dout = upload_u32(&memory, &vec![0; 8 * threads as usize]);
    let kernel = program.kernel("packs").unwrap();
    let params = Params::new().u64(din).u64(dout).build(&kernel);
    program
        .launch(&kernel, &config([1, 1, 1], [threads, 1, 1], 1), &params)
        .unwrap();
    let out = download_u32(&memory, dout, 8 * threads as usize);
    for t in 0..threads as usize {
        let (a, b, c) = (
            input[3 * t] as i32,
            input[3 * t + 1] as i32,
            input[3 * t + 2],
        );
        let got = &out[8 * t..8 * t + 5];
        let s8 = model(8, true, a, b, c);
        let expected = [
            model(16, false, a, b, 0),
            model(16, true, a, b, 0),
            model(8, false, a, b, c),
            s8,
            model(8, true, -300, 5, s8),
        ];
        assert_eq!(got, expected, "thread {t}: a {a}, b {b}, c {c:#x}");
    }
    // A few by hand: -300 → -128 (0x80), 5 → 5, the rest from c.
    assert_eq!(out[4] & 0xffff, 0x8005);
    assert_eq!(model(16, false, 70_000, -3, 0), 0xffff_0000);
}

#[test]
fn a_malformed_cvt_pack_fails_the_launch() {
    for body in [
        // No .sat.
        "cvt.pack.u8.s32.b32 %r1, %r2, %r3, %r4;",
        // An 8-bit form without its third source.
        "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3;",
        // A 32-bit type.
        "cvt.pack.sat.u32.s32.b32 %r1, %r2, %r3;",
    ] {
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n\
             {{ .reg .b32 %r<8>;\n{body}\nret; }}"
        );
        let (_memory, program) = load(&text);
        let kernel = program.kernel("k").unwrap();
        let params = Params::new().build(&kernel);
        let why = program
            .launch(&kernel, &config([1, 1, 1], [1, 1, 1], 1), &params)
            .err()
            .unwrap_or_else(|| panic!("`{body}` runs"));
        let why = format!("{why:?}");
        assert!(why.contains("cvt.pack"), "{body}: {why}");
    }
}
