use super::*;
use crate::interp::numeric::oracle::{round_of, Rng, MODES};
use crate::ir::Rounding::{Rm, Rn, Rp, Rz};
use rustc_apfloat::ieee::{BFloat, Double, Half};
use rustc_apfloat::{Float, FloatConvert};

/// Reference f64 → f16 conversion.
fn ref_f16(x: f64, mode: super::Mode) -> u16 {
    let mut loses = false;
    let h: Half = Double::from_bits(x.to_bits() as u128)
        .convert_r(round_of(mode), &mut loses)
        .value;
    h.to_bits() as u16
}

/// Reference f64 → bf16 conversion.
fn ref_bf16(x: f64, mode: super::Mode) -> u16 {
    let mut loses = false;
    let h: BFloat = Double::from_bits(x.to_bits() as u128)
        .convert_r(round_of(mode), &mut loses)
        .value;
    h.to_bits() as u16
}

#[test]
fn conversions_match_reference() {
    let mut rng = Rng(0x5555);
    for _ in 0..50_000 {
        // Spread over the f16/bf16 ranges, subnormals and overflow included.
        let x = rng.f64();
        let x =
            f64::from_bits(x.to_bits() & 0x800f_ffff_ffff_ffff | ((rng.next() % 80 + 983) << 52));
        for (mode, rnd) in MODES {
            assert_eq!(f64_to_f16(x, rnd, false), ref_f16(x, mode), "{x:e} {rnd:?}");
            assert_eq!(
                f64_to_bf16(x, rnd, false),
                ref_bf16(x, mode),
                "{x:e} {rnd:?}"
            );
            let f = x as f32;
            assert_eq!(
                f32_to_f16(f, rnd, false),
                ref_f16(f as f64, mode),
                "{f:e} {rnd:?}"
            );
            assert_eq!(
                f32_to_bf16(f, rnd, false),
                ref_bf16(f as f64, mode),
                "{f:e} {rnd:?}"
            );
        }
    }
    for h in 0..=u16::MAX {
        let back = f32_to_f16(f16_to_f32(h), Rn, false);
        assert!(back == h || (h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 && back == 0x7fff));
        let back = f32_to_bf16(bf16_to_f32(h), Rn, false);
        assert!(back == h || (h & 0x7f80 == 0x7f80 && h & 0x7f != 0 && back == 0x7fff));
    }
}

#[test]
fn single_rounding_from_f64() {
    // Just above the midpoint between 1 and 1 + 2^-10: through f32 it would become the tie.
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(f64_to_f16(x, Rn, false), 0x3c01);
    assert_eq!(f32_to_f16(x as f32, Rn, false), 0x3c00);
}

#[test]
fn satfinite_and_specials() {
    assert_eq!(f32_to_f16(1e9, Rn, true), 0x7bff);
    assert_eq!(f32_to_f16(f32::NEG_INFINITY, Rn, true), 0xfbff);
    assert_eq!(f32_to_f16(1e9, Rn, false), 0x7c00);
    assert_eq!(f32_to_f16(70000.0, Rz, false), 0x7bff);
    assert_eq!(f32_to_f16(f32::NAN, Rn, true), 0x7fff);
    assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000), Rn, false), 0x3f80); // tie to even
    assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000), Rn, false), 0x3f82);
    assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_0001), Rp, false), 0x3f81);
    assert_eq!(f16_to_f32(0x7e00).to_bits(), 0x7fff_ffff);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(bf16_to_f32(0xc000), -2.0);
}

/// Exact f16 value of a bit pattern.
fn v(h: u16) -> f64 {
    f16_to_f32(h) as f64
}

#[test]
fn f16_arithmetic_is_correctly_rounded() {
    let mut rng = Rng(31);
    for _ in 0..30_000 {
        let r = rng.next();
        let (a, b, c) = (
            r as u16 & 0x7bff,
            (r >> 16) as u16,
            (r >> 32) as u16 & 0xfbff,
        );
        let b = b & 0xfbff;
        for (mode, rnd) in MODES {
            // Exact zero sums take their sign from the mode: checked in `flags_and_lanes`.
            if v(a) + v(b) != 0.0 {
                assert_eq!(add_f16(a, b, rnd, false, false), ref_f16(v(a) + v(b), mode));
            }
            if v(a) - v(b) != 0.0 {
                assert_eq!(sub_f16(a, b, rnd, false, false), ref_f16(v(a) - v(b), mode));
            }
            assert_eq!(mul_f16(a, b, rnd, false, false), ref_f16(v(a) * v(b), mode));
            // Where a·b + c is exact in f64 (no TwoSum error), one reference rounding is right.
            let (exact, err) = super::super::round::two_sum(v(a) * v(b), v(c));
            if err == 0.0 && exact != 0.0 {
                assert_eq!(fma_f16(a, b, c, rnd, false, false), ref_f16(exact, mode));
            }
        }
    }
}

#[test]
fn flags_and_lanes() {
    let sub = 0x0001u16; // smallest f16 subnormal
    assert_eq!(add_f16(sub, sub, Rn, false, false), 0x0002);
    assert_eq!(add_f16(sub, sub, Rn, true, false), 0x0000);
    assert_eq!(mul_f16(0x3c00, 0x8001, Rn, true, false), 0x8000);
    assert_eq!(add_f16(0x3c00, 0x3c00, Rn, false, true), 0x3c00); // 2 saturates to 1
    assert_eq!(add_f16(0xbc00, 0x0000, Rn, false, true), 0x0000);
    assert_eq!(add_f16(0x7c00, 0xfc00, Rn, false, true), 0x0000); // NaN saturates to 0
    assert_eq!(add_f16(0x7c00, 0xfc00, Rn, false, false), 0x7fff);
    assert_eq!(add_bf16(0x3f80, 0x3f80, Rn, false, false), 0x4000);
    assert_eq!(fma_bf16(0x4000, 0x4040, 0x3f80, Rn, false, false), 0x40e0); // 2·3+1 = 7
    assert_eq!(add_f16(0x3c00, 0xbc00, Rm, false, false), 0x8000);
    assert_eq!(min_f16(0x7e00, 0x3c00, false), 0x3c00);
    assert_eq!(min_f16(0x7e00, 0x3c00, true), 0x7fff);
    assert_eq!(max_f16(0x8000, 0x0000, false), 0x0000);
    assert_eq!(min_bf16(0x8000, 0x0000, false), 0x8000);
    assert_eq!(neg_f16(0x3c00), 0xbc00);
    assert_eq!(abs_bf16(0xbf80), 0x3f80);
    assert_eq!(flush_f16(0x83ff), 0x8000);
    assert_eq!(flush_bf16(0x0040), 0x0000);
    let pair = 0x4000_3c00; // (hi 2.0, lo 1.0)
    assert_eq!(add_f16x2(pair, pair, Rn, false, false), 0x4400_4000);
    assert_eq!(mul_f16x2(pair, 0x3c00_4000, Rn, false, false), 0x4000_4000);
    assert_eq!(fma_f16x2(pair, pair, pair, Rn, false, false), 0x4600_4000);
    assert_eq!(
        sub_bf16x2(0x4000_3f80, 0x3f80_3f80, Rn, false, false),
        0x3f80_0000
    );
    assert_eq!(max_f16x2(0x3c00_bc00, 0x4000_0000, false), 0x4000_0000);
    assert_eq!(min_bf16x2(0x3f80_bf80, 0x4000_0000, false), 0x3f80_bf80);
    assert_eq!(neg_f16x2(0x3c00_3c00), 0xbc00_bc00);
    assert_eq!(abs_f16x2(0xbc00_bc00), 0x3c00_3c00);
    assert_eq!(add_bf16x2(0, 0, Rz, false, false), 0);
    assert_eq!(
        mul_bf16x2(0x3f80_3f80, 0x4000_4000, Rp, false, false),
        0x4000_4000
    );
    assert_eq!(fma_bf16x2(0, 0, 0x3f80_3f80, Rm, false, false), 0x3f80_3f80);
    assert_eq!(max_bf16x2(0, 0x3f80_3f80, false), 0x3f80_3f80);
    assert_eq!(neg_bf16x2(0), 0x8000_8000);
    assert_eq!(abs_bf16x2(0x8000_8000), 0);
    assert_eq!(sub_f16x2(pair, pair, Rn, false, false), 0);
    assert_eq!(sub_bf16(0x3f80, 0x3f80, Rn, false, false), 0);
    assert_eq!(mul_bf16(0x3f80, 0xc000, Rn, false, false), 0xc000);
    assert_eq!(max_bf16(0x3f80, 0x7fc0, false), 0x3f80);
    assert_eq!(fma_f16(0x3c00, 0x3c00, 0x3c00, Rz, false, false), 0x4000);
}

#[test]
fn relu_and_xorsign() {
    assert_eq!(relu_f16(0xbc00), 0);
    assert_eq!(relu_f16(0x8000), 0);
    assert_eq!(relu_f16(0x3c00), 0x3c00);
    assert_eq!(relu_f16(0xfe00), 0x7fff);
    assert_eq!(relu_f16(0x7c00), 0x7c00);
    assert_eq!(relu_bf16(0xbf80), 0);
    assert_eq!(relu_bf16(0xffc1), 0x7fff);
    assert_eq!(relu_bf16(0x7f80), 0x7f80);
    assert_eq!(
        minmax_xorsign_abs_half(0xc000, 0x3c00, false, false, false),
        0xbc00
    ); // -2, 1
    assert_eq!(
        minmax_xorsign_abs_half(0xc000, 0xbc00, false, true, false),
        0x4000
    );
    assert_eq!(
        minmax_xorsign_abs_half(0xbf80, 0x7fc0, true, false, false),
        0xbf80
    );
    assert_eq!(
        minmax_xorsign_abs_half(0xbf80, 0x7fc0, true, false, true),
        0x7fff
    );
}
