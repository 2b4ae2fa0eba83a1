use super::*;
use crate::interp::numeric::oracle::Rng;

/// Distance in ulps between two finite f32 of the same sign.
fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn within_half_ulp_of_exact() {
    let mut rng = Rng(5);
    for _ in 0..20_000 {
        let x = rng.f32();
        let y = x.abs();
        if y < 100.0 && y > 1e-30 {
            assert!(ulps(ex2_approx_f32(x), (x as f64).exp2() as f32) == 0);
        }
        if y > 0.0 {
            let want = (y as f64).log2();
            assert!((lg2_approx_f32(y) as f64 - want).abs() <= want.abs() * 2f64.powi(-24));
            assert!(ulps(rsqrt_approx_f32(y), (1.0 / (y as f64).sqrt()) as f32) == 0);
            assert!(ulps(sqrt_approx_f32(y), y.sqrt()) == 0);
            assert!(ulps(rcp_approx_f32(y), 1.0 / y) == 0);
        }
        let t = tanh_approx_f32(x) as f64;
        assert!((t - (x as f64).tanh()).abs() <= 2f64.powi(-24) * t.abs().max(1e-38));
    }
}

#[test]
fn sine_and_cosine_meet_the_gpu_bounds() {
    let mut rng = Rng(6);
    for i in 0..20_000 {
        let r = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let (x, bound) = if i % 2 == 0 {
            ((r * std::f64::consts::PI) as f32, 2f64.powf(-20.5))
        } else {
            ((r * 100.0 * std::f64::consts::PI) as f32, 2f64.powf(-14.7))
        };
        assert!(
            (sin_approx_f32(x) as f64 - (x as f64).sin()).abs() <= bound,
            "{x}"
        );
        assert!(
            (cos_approx_f32(x) as f64 - (x as f64).cos()).abs() <= bound,
            "{x}"
        );
    }
}

#[test]
fn special_values() {
    let nan = 0x7fff_ffffu32;
    assert_eq!(ex2_approx_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(ex2_approx_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(ex2_approx_f32(f32::NAN).to_bits(), nan);
    assert_eq!(ex2_approx_f32(-0.0), 1.0);
    assert_eq!(ex2_approx_f32(10.0), 1024.0);
    assert_eq!(lg2_approx_f32(0.0), f32::NEG_INFINITY);
    assert_eq!(lg2_approx_f32(-0.0), f32::NEG_INFINITY);
    assert_eq!(lg2_approx_f32(-1.0).to_bits(), nan);
    assert_eq!(lg2_approx_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(lg2_approx_f32(8.0), 3.0);
    assert_eq!(sin_approx_f32(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(sin_approx_f32(f32::INFINITY).to_bits(), nan);
    assert_eq!(cos_approx_f32(f32::NEG_INFINITY).to_bits(), nan);
    assert_eq!(cos_approx_f32(0.0), 1.0);
    assert_eq!(rsqrt_approx_f32(0.0), f32::INFINITY);
    assert_eq!(rsqrt_approx_f32(-0.0), f32::NEG_INFINITY);
    assert_eq!(rsqrt_approx_f32(-4.0).to_bits(), nan);
    assert_eq!(rsqrt_approx_f32(f32::INFINITY), 0.0);
    assert_eq!(rsqrt_approx_f32(4.0), 0.5);
    assert_eq!(rcp_approx_f32(-0.0), f32::NEG_INFINITY);
    assert_eq!(rcp_approx_f32(f32::INFINITY), 0.0);
    assert_eq!(sqrt_approx_f32(-0.0).to_bits(), 0x8000_0000);
    assert_eq!(sqrt_approx_f32(-1.0).to_bits(), nan);
    assert_eq!(tanh_approx_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(tanh_approx_f32(-0.0).to_bits(), 0x8000_0000);
}

#[test]
fn division() {
    assert_eq!(div_approx_f32(1.0, 4.0), 0.25);
    assert_eq!(div_approx_f32(3.0, f32::MAX).to_bits(), 0);
    assert_eq!(div_approx_f32(-3.0, f32::MAX).to_bits(), 0x8000_0000);
    assert_eq!(
        div_approx_f32(f32::INFINITY, 2f32.powi(127)).to_bits(),
        0x7fff_ffff
    );
    assert_eq!(div_approx_f32(0.0, 0.0).to_bits(), 0x7fff_ffff);
    // a × (1/b) may overflow where a/b does not, as on the GPU.
    assert_eq!(div_approx_f32(f32::MAX, 0.5), f32::INFINITY);
    assert_eq!(
        div_full_f32(f32::MAX, 2f32.powi(127)),
        f32::MAX / 2f32.powi(127)
    );
    assert_eq!(div_full_f32(1.0, 3.0), 1.0 / 3.0);
    let q = div_approx_f32(10.0, 3.0);
    assert!(ulps(q, 10.0 / 3.0) <= 2);
}

#[test]
fn double_precision_high_word() {
    let mut rng = Rng(8);
    for _ in 0..10_000 {
        let x = rng.f64().abs();
        if !(1e-300..=1e300).contains(&x) {
            continue;
        }
        let r = rcp_approx_ftz_f64(x);
        assert_eq!(r.to_bits() & 0xffff_ffff, 0);
        assert!((r * x - 1.0).abs() <= 2f64.powf(-19.4), "{x:e}");
        let s = rsqrt_approx_ftz_f64(x);
        assert_eq!(s.to_bits() & 0xffff_ffff, 0);
        assert!((s * s * x - 1.0).abs() <= 2f64.powi(-19), "{x:e}");
        let s = rsqrt_approx_f64(x);
        assert!((s * s * x - 1.0).abs() <= 2f64.powi(-50), "{x:e}");
    }
    assert_eq!(rcp_approx_ftz_f64(0.0), f64::INFINITY);
    assert_eq!(rcp_approx_ftz_f64(f64::from_bits(1)), f64::INFINITY); // flushed input
    assert_eq!(rcp_approx_ftz_f64(-f64::MAX), -0.0); // subnormal result flushed
    assert_eq!(rcp_approx_ftz_f64(2.0), 0.5);
    assert_eq!(rsqrt_approx_f64(f64::from_bits(1)), (2f64.powi(537)));
    assert_eq!(rsqrt_approx_ftz_f64(f64::from_bits(1)), f64::INFINITY);
    assert_eq!(rsqrt_approx_ftz_f64(-f64::from_bits(1)), f64::NEG_INFINITY);
    assert_eq!(rsqrt_approx_ftz_f64(-1.0).to_bits(), 0x7fff_ffff_0000_0000);
    assert_eq!(
        rsqrt_approx_ftz_f64(f64::NAN).to_bits(),
        0x7fff_ffff_0000_0000
    );
    assert_eq!(rsqrt_approx_ftz_f64(0.25), 2.0);
    // H200: div.approx.f32 scales a subnormal divisor rather than flushing it.
    let (d1, d256) = (f32::from_bits(1), f32::from_bits(0x100));
    assert_eq!(div_approx_f32(d1, d1), 1.0);
    assert_eq!(div_approx_f32(-0.0, d1).to_bits(), 0x8000_0000);
    assert_eq!(div_approx_f32(d256, d256), 1.0);
    assert_eq!(
        div_approx_f32(f32::from_bits(0x3380_0000), d1).to_bits(),
        0x7e00_0000
    );
    assert_eq!(rsqrt_approx_f64(0.25), 2.0);
    // H200: rsqrt.approx.f64 of a negative number gives the default NaN 0xfff8000000000000.
    assert_eq!(rsqrt_approx_f64(-1.0).to_bits(), 0xfff8_0000_0000_0000);
    assert_eq!(
        rsqrt_approx_f64(f64::from_bits(0x7ff0_0000_0000_0001)).to_bits(),
        0x7ff8_0000_0000_0001
    );
    assert_eq!(
        rcp_approx_ftz_f64(f64::NAN).to_bits(),
        0x7fff_ffff_0000_0000
    );
}

#[test]
fn half_precision_functions() {
    assert_eq!(ex2_approx_f16(0x4000), 0x4400); // 2^2 = 4
    assert_eq!(ex2_approx_f16(0xfc00), 0x0000); // 2^-inf
    assert_eq!(ex2_approx_f16(0x7e00), 0x7fff);
    assert_eq!(ex2_approx_f16(0x4c00), 0x7c00); // 2^16 overflows f16
    assert_eq!(ex2_approx_ftz_bf16(0x3f80), 0x4000); // 2^1
    assert_eq!(ex2_approx_ftz_bf16(0xc300), 0x0000); // 2^-128 is subnormal: flushed
    assert_eq!(tanh_approx_f16(0x0000), 0x0000);
    assert_eq!(tanh_approx_f16(0xfc00), 0xbc00);
    assert_eq!(tanh_approx_bf16(0x7f80), 0x3f80);
    assert_eq!(tanh_approx_bf16(0x3f80), 0x3f43); // tanh(1) = 0.7616
}
