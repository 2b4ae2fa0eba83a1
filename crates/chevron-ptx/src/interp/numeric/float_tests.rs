use super::*;
use crate::interp::numeric::oracle::{f32_fma, f32_op, same32, Rng, MODES};
use crate::ir::Rounding::{Rm, Rn, Rp, Rz};

#[test]
fn arithmetic_matches_reference_in_every_mode() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..40_000 {
        let (a, b, c) = (rng.f32(), rng.f32(), rng.f32());
        // Bring operands close in magnitude half the time, so sums cancel and round.
        let b = if i % 2 == 0 {
            b.abs().min(1e30) * a.signum() * 0.75
        } else {
            b
        };
        for (mode, rnd) in MODES {
            let cases = [
                ('+', add_f32(a, b, rnd), f32_op('+', a, b, mode)),
                ('-', sub_f32(a, b, rnd), f32_op('-', a, b, mode)),
                ('*', mul_f32(a, b, rnd), f32_op('*', a, b, mode)),
                ('/', div_f32(a, b, rnd), f32_op('/', a, b, mode)),
                ('f', fma_f32(a, b, c, rnd), f32_fma(a, b, c, mode)),
            ];
            for (op, got, want) in cases {
                assert!(
                    same32(got, want),
                    "{a:e} {op} {b:e} ({c:e}) {rnd:?}: {got:e} vs {want:e}"
                );
            }
        }
    }
}

#[test]
fn sqrt_is_bracketed_and_exact_when_representable() {
    let mut rng = Rng(7);
    for _ in 0..20_000 {
        let a = rng.f32().abs();
        let (d, n, u, z) = (
            sqrt_f32(a, Rm),
            sqrt_f32(a, Rn),
            sqrt_f32(a, Rp),
            sqrt_f32(a, Rz),
        );
        let x = a as f64;
        assert!(
            (d as f64) * (d as f64) <= x && x <= (u as f64) * (u as f64),
            "{a:e}"
        );
        assert_eq!(z, d);
        assert!(n == d || n == u);
        let exact = (d as f64) * (d as f64) == x;
        assert_eq!(exact, d == u, "{a:e}");
        if !exact {
            assert_eq!(u, d.next_up());
        }
    }
    assert_eq!(sqrt_f32(4.0, Rm), 2.0);
    assert_eq!(sqrt_f32(-0.0, Rp).to_bits(), 0x8000_0000);
    assert_eq!(sqrt_f32(-1.0, Rz).to_bits(), 0x7fff_ffff);
}

#[test]
fn directed_overflow_and_zero_signs() {
    assert_eq!(add_f32(f32::MAX, f32::MAX, Rz), f32::MAX);
    assert_eq!(add_f32(f32::MAX, f32::MAX, Rm), f32::MAX);
    assert_eq!(add_f32(f32::MAX, f32::MAX, Rp), f32::INFINITY);
    assert_eq!(mul_f32(-f32::MAX, 2.0, Rp), -f32::MAX);
    assert_eq!(add_f32(1.0, -1.0, Rm).to_bits(), 0x8000_0000);
    assert_eq!(add_f32(1.0, -1.0, Rz).to_bits(), 0);
    assert_eq!(add_f32(-0.0, -0.0, Rp).to_bits(), 0x8000_0000);
    assert_eq!(fma_f32(1.0, 1.0, -1.0, Rm).to_bits(), 0x8000_0000);
    assert_eq!(mul_f32(1e-30, 1e-30, Rp), f32::from_bits(1));
    assert_eq!(mul_f32(1e-30, 1e-30, Rz), 0.0);
    assert_eq!(rcp_f32(3.0, Rp), f32::from_bits(0x3eaa_aaab));
    assert_eq!(rcp_f32(3.0, Rz), f32::from_bits(0x3eaa_aaaa));
}

#[test]
fn nan_results_are_canonical() {
    let weird = f32::from_bits(0xffc0_1234);
    for rnd in [Rn, Rz, Rm, Rp] {
        assert_eq!(
            add_f32(f32::INFINITY, f32::NEG_INFINITY, rnd).to_bits(),
            0x7fff_ffff
        );
        assert_eq!(mul_f32(0.0, f32::INFINITY, rnd).to_bits(), 0x7fff_ffff);
        assert_eq!(add_f32(weird, 1.0, rnd).to_bits(), 0x7fff_ffff);
        assert_eq!(fma_f32(weird, 1.0, 2.0, rnd).to_bits(), 0x7fff_ffff);
        assert_eq!(div_f32(0.0, 0.0, rnd).to_bits(), 0x7fff_ffff);
    }
    // H200: f64 invalid operations give 0xfff8000000000000.
    assert_eq!(canonical_nan_f64().to_bits(), 0xfff8_0000_0000_0000);
    assert_eq!(
        mul_f64(0.0, f64::INFINITY, Rn).to_bits(),
        0xfff8_0000_0000_0000
    );
}

#[test]
fn ftz_product_flushes_when_tiny_before_rounding() {
    // H200: mul.rn.ftz.sat.f32 0x00800000 × 0x3f7fffff = +0, though IEEE rounding of the
    // product (2^-126 − 2^-150, a tie) gives 2^-126.
    let (m, x) = (f32::from_bits(0x0080_0000), f32::from_bits(0x3f7f_ffff));
    assert_eq!(mul_f32(m, x, Rn), m);
    assert_eq!(mul_ftz_f32(m, x, Rn).to_bits(), 0);
    assert_eq!(mul_ftz_f32(-m, x, Rn).to_bits(), 0x8000_0000);
    // The product fits 24 bits, so it is tiny in every rounding mode.
    assert_eq!(mul_ftz_f32(m, x, Rp).to_bits(), 0);
    assert_eq!(mul_ftz_f32(m, 1.0, Rn), m);
    assert_eq!(mul_ftz_f32(f32::from_bits(1), 1e30, Rn), 0.0); // flushed operand
    assert_eq!(mul_ftz_f32(m, 0.75, Rn), 0.0);
}

#[test]
fn fma_rounds_once() {
    // 1 + 2^-24 + 2^-60: rounding to f64 first would give a tie, then 1.0.
    let a = 1.0 + f32::EPSILON; // 1 + 2^-23
    let b = 1.0 + f32::EPSILON / 2.0f32.powi(13); // 1 + 2^-36
    let c = -f32::EPSILON; // products chosen so the sum sits just above a tie
    let exact = a as f64 * b as f64 + c as f64;
    let got = fma_f32(a, b, c, Rn) as f64;
    assert!((got - exact).abs() <= (exact as f32 as f64 - exact).abs());
}

#[test]
fn ftz_sat_min_max() {
    let sub = f32::from_bits(0x8000_0001);
    assert_eq!(flush_f32(sub).to_bits(), 0x8000_0000);
    assert_eq!(flush_f32(f32::MIN_POSITIVE), f32::MIN_POSITIVE);
    assert_eq!(flush_f64(f64::from_bits(5)).to_bits(), 0);
    assert_eq!(saturate_f32(f32::NAN), 0.0);
    assert_eq!(saturate_f32(-0.0).to_bits(), 0);
    assert_eq!(saturate_f32(1.5), 1.0);
    assert_eq!(saturate_f32(0.25), 0.25);
    assert_eq!(saturate_f64(-3.0), 0.0);
    assert_eq!(min_f32(f32::NAN, 2.0, false), 2.0);
    assert_eq!(max_f32(3.0, f32::NAN, false), 3.0);
    assert_eq!(min_f32(f32::NAN, 2.0, true).to_bits(), 0x7fff_ffff);
    assert_eq!(min_f32(f32::NAN, f32::NAN, false).to_bits(), 0x7fff_ffff);
    assert_eq!(min_f32(0.0, -0.0, false).to_bits(), 0x8000_0000);
    assert_eq!(max_f32(-0.0, 0.0, false).to_bits(), 0);
    assert_eq!(min_f64(-1.0, 1.0, false), -1.0);
    assert_eq!(max_f64(f64::NAN, -1.0, false), -1.0);
    assert_eq!(minmax_xorsign_abs_f32(-3.0, 2.0, false, false), -2.0);
    assert_eq!(minmax_xorsign_abs_f32(-3.0, -2.0, true, false), 3.0);
    assert_eq!(copysign_f32(-1.0, 2.0), -2.0);
    assert_eq!(copysign_f64(1.0, -2.0), 2.0);
    assert_eq!(neg_f32(0.0).to_bits(), 0x8000_0000);
    assert_eq!(abs_f32(-2.5), 2.5);
    assert_eq!(neg_f32(f32::from_bits(0xffc0_0000)).to_bits(), 0x7fff_ffff);
    assert_eq!(abs_f32(f32::from_bits(0xffc0_0001)).to_bits(), 0x7fff_ffff);
}

#[test]
fn atomics_and_sign_ops() {
    let sub = f32::from_bits(1);
    assert_eq!(atom_add_f32(sub, sub).to_bits(), 0);
    // The subnormal operand is flushed before adding.
    let small = -f32::from_bits(0x0070_0000);
    assert_eq!(atom_add_f32(f32::MIN_POSITIVE, small), f32::MIN_POSITIVE);
    // A result that lands in the subnormal range is flushed too.
    let just_above = f32::from_bits(0x0080_0001);
    assert_eq!(atom_add_f32(just_above, -f32::MIN_POSITIVE).to_bits(), 0);
    assert_eq!(atom_add_f32(1.0, 2.0), 3.0);
    assert_eq!(neg_f64(1.0), -1.0);
    assert_eq!(abs_f64(-0.0).to_bits(), 0);
    // The f64 forms are reachable through `float` as well.
    assert_eq!(add_f64(1.0, 2.0, Rn), 3.0);
}
