use super::{cvt, cvt_pack_f32, cvt_with, round_integral, CvtOptions};
use crate::interp::numeric::oracle::{round_of, Rng, MODES};
use crate::interp::numeric::round::{Mode, F16 as F16_FORMAT};
use crate::ir::Rounding::{Rm, Rmi, Rn, Rna, Rni, Rp, Rpi, Rz, Rzi};
use crate::ir::ScalarType;
use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert};
use ScalarType::*;

fn f32b(x: f32) -> u64 {
    x.to_bits() as u64
}

#[test]
fn integer_to_float_matches_reference() {
    let mut rng = Rng(2024);
    for i in 0..20_000 {
        let r = rng.next() >> (i % 64);
        for (mode, rnd) in MODES {
            let round = round_of(mode);
            let s = r as i64 as i128;
            let want32 = Single::from_i128_r(s, round).value.to_bits() as u64;
            assert_eq!(
                cvt(F32, S64, r, Some(rnd), false, false),
                want32,
                "{r:#x} {rnd:?}"
            );
            let want64 = Double::from_u128_r(r as u128, round).value.to_bits() as u64;
            assert_eq!(
                cvt(F64, U64, r, Some(rnd), false, false),
                want64,
                "{r:#x} {rnd:?}"
            );
            let want16 = Half::from_i128_r(r as i32 as i128, round).value.to_bits() as u64;
            assert_eq!(
                cvt(F16, S32, r, Some(rnd), false, false),
                want16,
                "{r:#x} {rnd:?}"
            );
            let wantb = BFloat::from_u128_r(r as u32 as u128, round).value.to_bits() as u64;
            assert_eq!(
                cvt(Bf16, U32, r, Some(rnd), false, false),
                wantb,
                "{r:#x} {rnd:?}"
            );
        }
    }
    assert_eq!(cvt(F32, S8, 0xff, Some(Rn), false, false), f32b(-1.0));
    assert_eq!(cvt(F32, U8, 0xff, Some(Rn), false, false), f32b(255.0));
    assert_eq!(cvt(F32, S32, 7, Some(Rn), false, true), f32b(1.0));
    assert_eq!(cvt(F32, S32, 0xffff_fff0, Some(Rn), false, true), 0);
}

#[test]
fn float_to_integer_rounds_and_clamps() {
    let x = |v: f32| f32b(v);
    assert_eq!(cvt(S32, F32, x(2.5), Some(Rni), false, false), 2);
    assert_eq!(cvt(S32, F32, x(3.5), Some(Rni), false, false), 4);
    assert_eq!(
        cvt(S32, F32, x(-2.5), Some(Rzi), false, false),
        (-2i32) as u32 as u64
    );
    assert_eq!(
        cvt(S32, F32, x(-2.5), Some(Rmi), false, false),
        (-3i32) as u32 as u64
    );
    assert_eq!(cvt(S32, F32, x(2.1), Some(Rpi), false, false), 3);
    assert_eq!(cvt(S32, F32, x(f32::NAN), Some(Rni), false, false), 0);
    // NaN from an f64 source or into a 64-bit destination gives 1 << (width - 1).
    let dnan = f64::NAN.to_bits();
    assert_eq!(cvt(S32, F64, dnan, Some(Rni), false, false), 0x8000_0000);
    assert_eq!(cvt(U16, F64, dnan, Some(Rni), false, false), 0x8000);
    assert_eq!(cvt(U64, F32, x(f32::NAN), Some(Rzi), false, false), 1 << 63);
    assert_eq!(cvt(S64, F16, 0x7e00, Some(Rzi), false, false), 1 << 63);
    assert_eq!(cvt(U8, F16, 0x7e00, Some(Rzi), false, false), 0);
    assert_eq!(cvt(S32, F32, x(1e10), Some(Rzi), false, false), 0x7fff_ffff);
    assert_eq!(
        cvt(S32, F32, x(-1e10), Some(Rzi), false, false),
        0x8000_0000
    );
    assert_eq!(cvt(U32, F32, x(-5.0), Some(Rzi), false, false), 0);
    assert_eq!(
        cvt(U32, F32, x(f32::INFINITY), Some(Rzi), false, false),
        0xffff_ffff
    );
    assert_eq!(cvt(S8, F32, x(300.0), Some(Rzi), false, false), 0x7f);
    assert_eq!(cvt(S8, F32, x(-300.0), Some(Rzi), false, false), 0x80);
    assert_eq!(
        cvt(U16, F64, (-0.5f64).to_bits(), Some(Rni), false, false),
        0
    );
    assert_eq!(
        cvt(S64, F64, 1e30f64.to_bits(), Some(Rzi), false, false),
        i64::MAX as u64
    );
    assert_eq!(
        cvt(U64, F64, 1e19f64.to_bits(), Some(Rzi), false, false),
        10u64.pow(19)
    );
    assert_eq!(
        cvt(S32, F16, 0xc100, Some(Rzi), false, false),
        (-2i32) as u32 as u64
    ); // -2.5
    let sub = 1u64; // smallest f32 subnormal
    assert_eq!(cvt(S32, F32, sub, Some(Rpi), false, false), 1);
    assert_eq!(cvt(S32, F32, sub, Some(Rpi), true, false), 0); // flushed first
}

#[test]
fn integer_to_integer() {
    assert_eq!(cvt(S32, S8, 0x80, None, false, false), 0xffff_ff80);
    assert_eq!(cvt(U32, U8, 0x180, None, false, false), 0x80);
    assert_eq!(cvt(S8, S32, 0x1234_5681, None, false, false), 0x81);
    assert_eq!(cvt(S8, S32, 0x1234_5681, None, false, true), 0x7f);
    assert_eq!(cvt(U8, S32, 0xffff_ffff, None, false, true), 0);
    assert_eq!(cvt(U32, S32, 0xffff_ffff, None, false, true), 0);
    assert_eq!(cvt(S32, U32, 0xffff_ffff, None, false, true), 0x7fff_ffff);
    assert_eq!(cvt(S64, S32, 0xffff_ffff, None, false, false), u64::MAX);
    assert_eq!(
        cvt(U64, S16, 0x8000, None, false, false),
        0xffff_ffff_ffff_8000
    );
    assert_eq!(cvt(U64, S16, 0x8000, None, false, true), 0);
}

#[test]
fn float_to_float_matches_reference() {
    let mut rng = Rng(77);
    for _ in 0..20_000 {
        let x = rng.f64();
        let d = Double::from_bits(x.to_bits() as u128);
        for (mode, rnd) in MODES {
            let mut loses = false;
            let s: Single = d.convert_r(round_of(mode), &mut loses).value;
            let got = cvt(F32, F64, x.to_bits(), Some(rnd), false, false);
            assert_eq!(got, s.to_bits() as u64, "{x:e} {rnd:?}");
        }
        // Narrow values to the fp8 ranges and compare where the reference does not overflow.
        let small = x.abs() % 500.0 * x.signum();
        let ds = Double::from_bits(small.to_bits() as u128);
        let mut loses = false;
        let e4: Float8E4M3FN = ds.convert_r(round_of(Mode::NearestEven), &mut loses).value;
        if small.abs() < 448.0 {
            let got = cvt(E4m3, F64, small.to_bits(), Some(Rn), false, false);
            assert_eq!(got, e4.to_bits() as u64, "{small:e}");
        }
        let e5: Float8E5M2 = ds.convert_r(round_of(Mode::NearestEven), &mut loses).value;
        assert_eq!(
            cvt(E5m2, F64, small.to_bits(), Some(Rn), false, false),
            e5.to_bits() as u64
        );
    }
}

#[test]
fn float_to_float_specials() {
    let nan = f32b(f32::NAN);
    // Into f64 a NaN keeps its sign and payload, quieted.
    assert_eq!(
        cvt(F64, F32, nan, None, false, false),
        0x7ff8_0000_0000_0000
    );
    assert_eq!(
        cvt(F64, F32, 0x7fff_ffff, None, false, false),
        0x7fff_ffff_e000_0000
    );
    assert_eq!(
        cvt(F64, F32, 0xff80_0001, None, false, false),
        0xfff8_0000_2000_0000
    );
    assert_eq!(
        cvt(F64, F16, 0x7e01, None, false, false),
        0x7ff8_0400_0000_0000
    );
    assert_eq!(cvt(F16, F32, nan, Some(Rn), false, false), 0x7fff);
    // H200: from f64 a NaN keeps its sign, quieted, into f32/f16/bf16; bf16 → f32 shifts the
    // bits unchanged; cvt.rna.tf32.f32 rounds a NaN's bits like a number's.
    for rnd in [Rn, Rz, Rm, Rp] {
        assert_eq!(
            cvt(F32, F64, 0xfff8_0000_0000_0000, Some(rnd), false, false),
            0xffc0_0000
        );
        assert_eq!(
            cvt(F32, F64, 0x7ff0_0000_0000_0001, Some(rnd), false, false),
            0x7fc0_0000
        );
    }
    assert_eq!(
        cvt(F16, F64, 0xfff8_0000_0000_0000, Some(Rn), false, false),
        0xfe00
    );
    assert_eq!(
        cvt(Bf16, F64, 0x7ff8_0000_0000_0000, Some(Rn), false, false),
        0x7fc0
    );
    assert_eq!(cvt(F32, Bf16, 0x7f81, None, false, false), 0x7f81_0000);
    assert_eq!(cvt(F32, Bf16, 0xffcd, None, false, false), 0xffcd_0000);
    assert_eq!(
        cvt(Tf32, F32, 0x7f80_0001, Some(Rna), false, false),
        0x7f80_0000
    );
    assert_eq!(
        cvt(Tf32, F32, 0xffc0_0000, Some(Rna), false, false),
        0xffc0_0000
    );
    assert_eq!(
        cvt(Tf32, F32, 0x7f7f_ffff, Some(Rna), false, false),
        0x7f80_0000
    );
    // H200: .sat turns −0 (also a flushed negative subnormal) into +0; NaN into +0.
    assert_eq!(cvt(F32, F32, 0x8000_0001, None, true, true), 0);
    assert_eq!(cvt(F32, F64, 1u64 << 63, Some(Rn), false, true), 0);
    assert_eq!(cvt(F32, F64, f64::NAN.to_bits(), Some(Rn), false, true), 0);
    assert_eq!(cvt(F64, F16, 0x3c00, None, false, false), 1.0f64.to_bits());
    assert_eq!(cvt(F32, F32, f32b(2.5), Some(Rni), false, false), f32b(2.0));
    assert_eq!(
        cvt(F32, F32, f32b(-0.5), Some(Rpi), false, false),
        f32b(-0.0)
    );
    assert_eq!(cvt(F32, F32, f32b(2.5), Some(Rmi), false, false), f32b(2.0));
    assert_eq!(
        cvt(F64, F64, 2.5f64.to_bits(), Some(Rpi), false, false),
        3.0f64.to_bits()
    );
    assert_eq!(cvt(F32, F32, f32b(3.0), None, false, true), f32b(1.0));
    assert_eq!(cvt(F32, F32, nan, None, false, true), 0);
    assert_eq!(cvt(F32, F32, 1, None, true, false), 0); // ftz
    assert_eq!(cvt(F32, F32, 1, None, false, false), 1);
    assert_eq!(cvt(F32, F64, 1e-40f64.to_bits(), Some(Rn), true, false), 0);
    assert_eq!(
        cvt(F32, F64, 1e300f64.to_bits(), Some(Rz), false, false),
        f32b(f32::MAX)
    );
    assert_eq!(cvt(F16, F32, f32b(65520.0), Some(Rn), false, false), 0x7c00);
    // tf32: 10 fraction bits kept in an f32 container.
    let x = f32::from_bits(0x3f80_1000); // 1 + 2^-11: a tie
    assert_eq!(
        cvt(Tf32, F32, f32b(x), Some(Rna), false, false),
        0x3f80_2000
    );
    assert_eq!(cvt(Tf32, F32, f32b(x), Some(Rn), false, false), 0x3f80_0000);
    assert_eq!(cvt(Tf32, F32, f32b(x), Some(Rz), false, false), 0x3f80_0000);
    // H200: cvt.rna.tf32.f32 keeps the quiet NaN 0x7fc00000 (not a canonical 0x7fffe000).
    assert_eq!(cvt(Tf32, F32, nan, Some(Rna), false, false), 0x7fc0_0000);
    // fp8 saturates (PTX requires .satfinite for these destinations).
    assert_eq!(cvt(E4m3, F32, f32b(1000.0), Some(Rn), false, false), 0x7e);
    assert_eq!(
        cvt(E4m3, F32, f32b(f32::NEG_INFINITY), Some(Rn), false, false),
        0xfe
    );
    assert_eq!(cvt(E5m2, F32, f32b(1e6), Some(Rn), false, false), 0x7b);
    assert_eq!(cvt(E4m3, F32, nan, Some(Rn), false, false), 0x7f);
    assert_eq!(cvt(F32, E4m3, 0x7e, None, false, false), f32b(448.0));
    assert_eq!(cvt(F16, E5m2, 0x3c, None, false, false), 0x3c00);
    assert_eq!(
        cvt(S32, F32, f32b(-3.7), Some(Rm), false, false),
        (-4i32) as u32 as u64
    );
    assert_eq!(
        cvt(F32, F64, 1.0f64.to_bits(), Some(Rp), false, false),
        f32b(1.0)
    );
}

#[test]
fn packed_conversions() {
    let o = CvtOptions {
        rnd: Some(Rn),
        ..CvtOptions::default()
    };
    assert_eq!(cvt_pack_f32(F16x2, 1.0, 2.0, &o), 0x3c00_4000);
    assert_eq!(cvt_pack_f32(Bf16x2, -1.0, 0.5, &o), 0xbf80_3f00);
    assert_eq!(cvt_pack_f32(E4m3x2, 1.0, 2.0, &o), 0x3840);
    assert_eq!(cvt_pack_f32(E5m2x2, 1e9, -1.0, &o), 0x7bbc);
    assert_eq!(cvt_pack_f32(F32, 1.0, 2.0, &o), 0);
    let relu = CvtOptions { relu: true, ..o };
    assert_eq!(cvt_pack_f32(F16x2, -1.0, f32::NAN, &relu), 0x0000_7fff);
    let sat = CvtOptions {
        satfinite: true,
        ..o
    };
    assert_eq!(
        cvt_pack_f32(F16x2, 1e9, f32::NEG_INFINITY, &sat),
        0x7bff_fbff
    );
    // e4m3x2 → f16x2: element 0 (low byte) to the low half.
    assert_eq!(cvt_with(F16x2, E4m3x2, 0x3840, &o), 0x3c00_4000);
    assert_eq!(cvt_with(F16x2, E5m2x2, 0x7f3c, &o), 0x7fff_3c00);
    assert_eq!(cvt_with(E4m3x2, F16x2, 0x3c00_4000, &o), 0x3840);
    assert_eq!(cvt_with(E5m2x2, F16x2, 0x7c00_bc00, &o), 0x7bbc);
    assert_eq!(cvt_with(E4m3x2, F16x2, 0xbc00_4000, &relu), 0x0040);
    assert_eq!(cvt_with(E4m3x2, F32, 0, &o), 0);
    for (x, rnd) in [(1.1f64, Rm), (1.1, Rp), (-1.1, Rz)] {
        let r = cvt(F16, F64, x.to_bits(), Some(rnd), false, false);
        let back = F16_FORMAT.to_f64(r);
        assert!(match rnd {
            Rm => back <= x,
            Rp => back >= x,
            _ => back.abs() <= x.abs(),
        });
    }
    assert_eq!(round_integral(-2.5, Mode::NearestAway), -3.0);
    assert_eq!(cvt(S32, F32, f32b(2.5), Some(Rpi), false, false), 3);
}

#[test]
fn fast_paths_agree_with_the_general_path() {
    // Options that cannot change these conversions' results force the general path.
    let mut rng = Rng(4242);
    for i in 0..20_000 {
        let bits = if i % 2 == 0 {
            rng.next()
        } else {
            rng.f32().to_bits() as u64
        };
        for rnd in [None, Some(Rn), Some(Rni), Some(Rzi), Some(Rmi), Some(Rpi)] {
            let general = CvtOptions {
                rnd,
                satfinite: true,
                ..CvtOptions::default()
            };
            for (dst, src) in [
                (S32, F32),
                (U32, F32),
                (F32, S32),
                (F32, U32),
                (F64, S32),
                (F64, U32),
            ] {
                let fast = cvt(dst, src, bits, rnd, false, false);
                assert_eq!(
                    fast,
                    cvt_with(dst, src, bits, &general),
                    "{dst:?} {src:?} {bits:#x}"
                );
            }
            // With float rounding, flushing f32 subnormals changes nothing for f16 results.
            if !matches!(rnd, None | Some(Rn)) {
                continue;
            }
            let ftz = CvtOptions {
                rnd,
                ftz: true,
                ..CvtOptions::default()
            };
            for (dst, src) in [(F16, F32), (F32, F16)] {
                let fast = cvt(dst, src, bits, rnd, false, false);
                assert_eq!(
                    fast,
                    cvt_with(dst, src, bits, &ftz),
                    "{dst:?} {src:?} {bits:#x}"
                );
            }
        }
    }
}
