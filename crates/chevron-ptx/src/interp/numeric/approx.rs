//! The `.approx` functions (`ex2`, `lg2`, `sin`, `cos`, `rsqrt`, `rcp`, `sqrt`, `div`, `tanh`)
//! and `div.full`.
//!
//! The GPU computes these in its special-function unit, whose exact bits are not published. We
//! compute the mathematical value in f64 and round it to f32, so each result here is within
//! 0.5 ulp (plus the stated reduction error) of the exact value, and thus within the GPU's
//! documented error of the GPU's own result: compare with GPU output using the GPU's bound
//! plus one ulp, as each function's doc states. Special cases (±0, ±∞, NaN, negative inputs)
//! give exactly what the GPU gives; every NaN result is the canonical NaN.
//!
//! `.ftz` is the caller's: flush the input with `flush_f32` before and the result after.

use super::float::{canonical_nan_f32, canonicalize_f32, mul_f32};
use super::round::{round_f64, Format, Mode, BF16, F16};
use crate::ir::Rounding;

/// Rounds an f64 to f32 with the canonical NaN.
#[inline]
fn to_f32(x: f64) -> f32 {
    canonicalize_f32(x as f32)
}

/// `ex2.approx.f32`: 2^x. GPU bound: 2 ulp (full range); ours: 0.5 ulp. 2^−∞ = +0.
#[inline]
pub fn ex2_approx_f32(x: f32) -> f32 {
    to_f32((x as f64).exp2())
}

/// `lg2.approx.f32`: log2(x). GPU bound: 2^−22.6 absolute for x in (0.5, 2), 2^−22 relative
/// elsewhere; ours: 0.5 ulp. lg2(±0) = −∞, lg2(negative) = NaN, lg2(+∞) = +∞.
#[inline]
pub fn lg2_approx_f32(x: f32) -> f32 {
    to_f32((x as f64).log2())
}

/// 1/(2π) as the f32 the GPU multiplies by before its sine/cosine unit (`0x3e22f983`).
const INV_TWO_PI: f32 = f32::from_bits(0x3e22_f983);

/// The argument in revolutions, reduced as the GPU does (`x × 1/(2π)` rounded toward zero to
/// f32), then to its fractional part in [−0.5, 0.5] (exact).
#[inline]
fn revolutions(x: f32) -> f64 {
    let t = mul_f32(x, INV_TWO_PI, Rounding::Rz) as f64;
    t - t.round()
}

/// `sin.approx.f32`. GPU bound: 2^−20.5 absolute in [−π, π], 2^−14.7 in [−100π, 100π]. Ours
/// reproduces the GPU's argument reduction (an f32 multiply by 1/(2π) rounded toward zero), so
/// it is within about 2^−22 absolute of the GPU's result at any |x|. sin(±∞) = NaN, sin(±0) = ±0.
#[inline]
pub fn sin_approx_f32(x: f32) -> f32 {
    if x == 0.0 || x.is_nan() {
        return canonicalize_f32(x);
    }
    if x.is_infinite() {
        return canonical_nan_f32();
    }
    to_f32((revolutions(x) * std::f64::consts::TAU).sin())
}

/// `cos.approx.f32`. Bounds and reduction as for [`sin_approx_f32`]. cos(±∞) = NaN.
#[inline]
pub fn cos_approx_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return canonical_nan_f32();
    }
    to_f32((revolutions(x) * std::f64::consts::TAU).cos())
}

/// `rsqrt.approx.f32`: 1/√x. GPU bound: 2^−22.9 relative (about 1 ulp); ours: 0.5 ulp.
/// rsqrt(±0) = ±∞, rsqrt(negative) = NaN, rsqrt(+∞) = +0.
#[inline]
pub fn rsqrt_approx_f32(x: f32) -> f32 {
    to_f32(1.0 / (x as f64).sqrt())
}

/// `rcp.approx.f32`: 1/x. GPU bound: 1 ulp; ours: correctly rounded. rcp(±0) = ±∞.
#[inline]
pub fn rcp_approx_f32(x: f32) -> f32 {
    to_f32(1.0 / x as f64)
}

/// `sqrt.approx.f32`: √x. GPU bound: about 1 ulp (2^−23 relative); ours: correctly rounded.
/// sqrt(−0) = −0, sqrt(negative) = NaN.
#[inline]
pub fn sqrt_approx_f32(x: f32) -> f32 {
    to_f32((x as f64).sqrt())
}

/// `div.approx.f32`: computed as the GPU does, `a × (1/b)` with the reciprocal rounded to f32
/// (GPU bound: 2 ulp for 2^−126 ≤ |b| ≤ 2^126). For 2^126 < |b| < 2^128 the GPU's reciprocal
/// underflows: the result is a signed zero, or NaN when `a` is infinite. A subnormal `b` is not
/// flushed: the GPU scales it into the normal range first (measured on an H200: `1e-45 / 1e-45`
/// is 1, `0 / 1e-45` is 0), so the quotient is `a × (1/(b·2^24)) × 2^24`, rounded once.
#[inline]
pub fn div_approx_f32(a: f32, b: f32) -> f32 {
    if b != 0.0 && b.abs() < f32::MIN_POSITIVE {
        let two24 = 16_777_216.0f32;
        let r = rcp_approx_f32(b * two24) as f64; // b·2^24 is exact and normal
        return to_f32(a as f64 * r * two24 as f64);
    }
    let big = f32::from_bits(0x7e80_0000); // 2^126
    if b.abs() > big && b.is_finite() {
        if a.is_infinite() || a.is_nan() {
            return canonical_nan_f32();
        }
        let sign = (a.to_bits() ^ b.to_bits()) & 0x8000_0000;
        return f32::from_bits(sign);
    }
    canonicalize_f32(a * rcp_approx_f32(b))
}

/// `div.full.f32`: full-range division. GPU bound: 2 ulp over the full range; ours: correctly
/// rounded.
#[inline]
pub fn div_full_f32(a: f32, b: f32) -> f32 {
    canonicalize_f32(a / b)
}

/// `tanh.approx.f32`. GPU bound: 2^−10.987 relative (about 2^12 ulp); ours: 0.5 ulp.
/// tanh(±∞) = ±1, tanh(±0) = ±0.
#[inline]
pub fn tanh_approx_f32(x: f32) -> f32 {
    to_f32((x as f64).tanh())
}

/// `ex2.approx.f16` (also each half of `.f16x2`): 2^x rounded to f16. GPU bound: 2^−9.9
/// relative (about 1 f16 ulp); ours: 0.5 ulp. NaN gives `0x7fff`.
#[inline]
pub fn ex2_approx_f16(h: u16) -> u16 {
    round_f64(
        F16.to_f64(h as u64).exp2(),
        0.0,
        F16,
        Mode::NearestEven,
        false,
    ) as u16
}

/// `ex2.approx.ftz.bf16` (also each half of `.bf16x2`): 2^x rounded to bf16, subnormal inputs
/// and results flushed. GPU bound: 2^−7 relative (about 1 bf16 ulp); ours: 0.5 ulp.
#[inline]
pub fn ex2_approx_ftz_bf16(h: u16) -> u16 {
    let x = BF16.to_f64(super::half::flush_bf16(h) as u64);
    super::half::flush_bf16(round_f64(x.exp2(), 0.0, BF16, Mode::NearestEven, false) as u16)
}

/// `tanh.approx.f16` (also each half of `.f16x2`). GPU bound: 2^−10.987 absolute; ours:
/// 0.5 ulp.
#[inline]
pub fn tanh_approx_f16(h: u16) -> u16 {
    round_f64(
        F16.to_f64(h as u64).tanh(),
        0.0,
        F16,
        Mode::NearestEven,
        false,
    ) as u16
}

/// `tanh.approx.bf16` (also each half of `.bf16x2`). GPU bound: 2^−8 absolute; ours: 0.5 ulp.
#[inline]
pub fn tanh_approx_bf16(h: u16) -> u16 {
    round_f64(
        BF16.to_f64(h as u64).tanh(),
        0.0,
        BF16,
        Mode::NearestEven,
        false,
    ) as u16
}

/// The high word of an f64 as the GPU's 64-bit special-function unit sees it: 11 exponent bits
/// and 20 fraction bits.
const HIGH_WORD: Format = Format {
    frac_bits: 20,
    exp_bits: 11,
    ieee: true,
};

/// Rounds to the high 32 bits (20 fraction bits) and clears the low word, as the GPU's
/// `MUFU.RCP64H`/`MUFU.RSQ64H` results are. NaN gives `0x7fffffff_00000000`.
#[inline]
fn high_word_only(x: f64) -> f64 {
    f64::from_bits(round_f64(x, 0.0, HIGH_WORD, Mode::NearestEven, false) << 32)
}

/// `rcp.approx.ftz.f64`: a reciprocal from the high 32 bits of `x` only (its low word ignored),
/// with the low 32 bits of the result zero. GPU bound: about 2^−20 relative; ours: the exact
/// reciprocal of the truncated input rounded to 20 fraction bits, within 2^−19.4 relative of
/// 1/x. Subnormal inputs and results are flushed to signed zero.
#[inline]
pub fn rcp_approx_ftz_f64(x: f64) -> f64 {
    let x = super::float::flush_f64(x);
    let high = f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000);
    super::float::flush_f64(high_word_only(1.0 / high))
}

/// `rsqrt.approx.f64`: 1/√x. The GPU computes this one in software at close to full double
/// precision (the bound is not published); ours is within 1 ulp of exact. rsqrt(±0) = ±∞,
/// rsqrt(negative) = NaN, rsqrt(+∞) = +0; a NaN operand propagates quieted.
#[inline]
pub fn rsqrt_approx_f64(x: f64) -> f64 {
    super::directed::nan_f64(1.0 / x.sqrt(), x, 0.0, 0.0)
}

/// `rsqrt.approx.ftz.f64`: 1/√x from the high 32 bits of `x` only, rounded to 20 fraction bits
/// with the low 32 bits of the result zero (the PTX ISA's definition). GPU bound: about 2^−20
/// relative; ours: within 2^−20 relative of exact. Subnormal inputs are flushed (giving ±∞);
/// NaN gives `0x7fffffff_00000000`.
#[inline]
pub fn rsqrt_approx_ftz_f64(x: f64) -> f64 {
    let x = super::float::flush_f64(x);
    let high = f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000);
    high_word_only(1.0 / high.sqrt())
}

#[cfg(test)]
#[path = "approx_tests.rs"]
mod tests;
