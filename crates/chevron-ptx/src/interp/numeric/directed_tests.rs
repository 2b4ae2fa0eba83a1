use super::*;
use crate::interp::numeric::float::{abs_f64, max_f64, min_f64, neg_f64};
use crate::interp::numeric::oracle::{f64_fma, f64_op, same64, Rng, MODES};
use crate::ir::Rounding::{Rm, Rn, Rp, Rz};

#[test]
fn arithmetic_matches_reference_in_every_mode() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for i in 0..30_000 {
        let (a, b, c) = (rng.f64(), rng.f64(), rng.f64());
        let b = if i % 3 == 0 {
            b.abs().min(1e300) * a.signum() * 0.75
        } else {
            b
        };
        // Products near c, so fma cancels.
        let c = if i % 4 == 1 {
            -(a * b) * (1.0 + c.abs().min(1.0) * 1e-9)
        } else {
            c
        };
        for (mode, rnd) in MODES {
            let cases = [
                ('+', add_f64(a, b, rnd), f64_op('+', a, b, mode)),
                ('-', sub_f64(a, b, rnd), f64_op('-', a, b, mode)),
                ('*', mul_f64(a, b, rnd), f64_op('*', a, b, mode)),
                ('/', div_f64(a, b, rnd), f64_op('/', a, b, mode)),
                ('f', fma_f64(a, b, c, rnd), f64_fma(a, b, c, mode)),
            ];
            for (op, got, want) in cases {
                assert!(
                    same64(got, want),
                    "{a:e} {op} {b:e} ({c:e}) {rnd:?}: {got:e} vs {want:e}"
                );
            }
        }
    }
}

#[test]
fn subnormal_and_overflow_edges() {
    let tiny = f64::from_bits(1);
    assert_eq!(mul_f64(tiny, 0.5, Rp), tiny);
    assert_eq!(mul_f64(tiny, 0.5, Rz), 0.0);
    assert_eq!(mul_f64(-tiny, 0.5, Rm), -tiny);
    assert_eq!(div_f64(tiny, 3.0, Rp), tiny);
    assert_eq!(fma_f64(tiny, 0.5, 0.0, Rp), tiny);
    assert_eq!(add_f64(f64::MAX, f64::MAX, Rz), f64::MAX);
    assert_eq!(add_f64(-f64::MAX, -f64::MAX, Rp), -f64::MAX);
    assert_eq!(add_f64(-f64::MAX, -f64::MAX, Rm), f64::NEG_INFINITY);
    assert_eq!(mul_f64(f64::MAX, 2.0, Rm), f64::MAX);
    assert_eq!(add_f64(1.0, -1.0, Rm).to_bits(), 0x8000_0000_0000_0000);
    assert_eq!(fma_f64(2.0, 3.0, -6.0, Rm).to_bits(), 0x8000_0000_0000_0000);
    assert_eq!(fma_f64(0.0, 3.0, -0.0, Rn).to_bits(), 0);
    assert_eq!(rcp_f64(3.0, Rz).to_bits(), 0x3fd5_5555_5555_5555);
    assert_eq!(rcp_f64(3.0, Rp).to_bits(), 0x3fd5_5555_5555_5556);
    // H200: div.rp.f64 0/0 gives 0xfff8000000000000.
    assert_eq!(div_f64(0.0, 0.0, Rp).to_bits(), 0xfff8_0000_0000_0000);
}

#[test]
fn sqrt_is_bracketed() {
    let mut rng = Rng(99);
    for _ in 0..20_000 {
        let a = rng.f64().abs();
        if a == 0.0 {
            continue;
        }
        let (d, n, u, z) = (
            sqrt_f64(a, Rm),
            sqrt_f64(a, Rn),
            sqrt_f64(a, Rp),
            sqrt_f64(a, Rz),
        );
        // d² ≤ a ≤ u², judged exactly with the reference fma.
        let below = |r: f64| f64_fma(r, r, -a, crate::interp::numeric::round::Mode::Up) <= 0.0;
        let above = |r: f64| f64_fma(r, r, -a, crate::interp::numeric::round::Mode::Down) >= 0.0;
        assert!(below(d) && above(u), "{a:e}");
        assert_eq!(z, d);
        assert!(n == d || n == u);
        assert!(u == d || u.to_bits() == d.to_bits() + 1, "{a:e}");
    }
    assert_eq!(sqrt_f64(-0.0, Rm).to_bits(), 0x8000_0000_0000_0000);
    assert_eq!(sqrt_f64(f64::INFINITY, Rz), f64::INFINITY);
}

#[test]
fn nan_payloads_propagate() {
    let snan = f64::from_bits(0x7ff0_0000_0000_0001);
    let payload = f64::from_bits(0xfff8_0000_0000_1234);
    for rnd in [Rn, Rz, Rm, Rp] {
        assert_eq!(add_f64(snan, 1.0, rnd).to_bits(), 0x7ff8_0000_0000_0001);
        assert_eq!(mul_f64(2.0, payload, rnd).to_bits(), 0xfff8_0000_0000_1234);
        assert_eq!(div_f64(payload, snan, rnd).to_bits(), 0xfff8_0000_0000_1234);
        assert_eq!(
            fma_f64(1.0, 2.0, payload, rnd).to_bits(),
            0xfff8_0000_0000_1234
        );
        assert_eq!(sqrt_f64(payload, rnd).to_bits(), 0xfff8_0000_0000_1234);
        // The H200's default NaN for invalid operations has the sign set.
        assert_eq!(
            add_f64(f64::INFINITY, f64::NEG_INFINITY, rnd).to_bits(),
            0xfff8_0000_0000_0000
        );
        assert_eq!(sqrt_f64(-2.0, rnd).to_bits(), 0xfff8_0000_0000_0000);
        // H200: with two NaN operands add/sub/mul/fma return b (quieted), div returns a; sub
        // does not negate a NaN b.
        assert_eq!(add_f64(payload, snan, rnd).to_bits(), 0x7ff8_0000_0000_0001);
        assert_eq!(mul_f64(snan, payload, rnd).to_bits(), 0xfff8_0000_0000_1234);
        assert_eq!(
            fma_f64(snan, payload, 1.0, rnd).to_bits(),
            0xfff8_0000_0000_1234
        );
        assert_eq!(sub_f64(0.0, snan, rnd).to_bits(), 0x7ff8_0000_0000_0001);
        assert_eq!(sub_f64(payload, snan, rnd).to_bits(), 0x7ff8_0000_0000_0001);
    }
    // H200: min/max.f64 of two NaNs give b quieted; neg/abs.f64 quiet a NaN and keep its sign.
    assert_eq!(
        min_f64(payload, snan, false).to_bits(),
        0x7ff8_0000_0000_0001
    );
    assert_eq!(
        max_f64(snan, payload, false).to_bits(),
        0xfff8_0000_0000_1234
    );
    assert_eq!(min_f64(snan, 2.0, false), 2.0);
    assert_eq!(neg_f64(snan).to_bits(), 0x7ff8_0000_0000_0001);
    assert_eq!(abs_f64(payload).to_bits(), 0xfff8_0000_0000_1234);
    assert_eq!(neg_f64(-0.0).to_bits(), 0);
    assert_eq!(nan_f64(1.5, snan, snan, snan), 1.5);
}
