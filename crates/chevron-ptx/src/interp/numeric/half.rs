//! f16 and bf16: conversions to and from f32/f64, and the scalar and packed (`.f16x2`,
//! `.bf16x2`) arithmetic of `add`, `sub`, `mul`, `fma`, `min`, `max`, `neg`, `abs`.
//!
//! Values are bit patterns: `u16` for a scalar, `u32` for a pair whose element 0 is the low
//! half. Arithmetic is exact then rounded once (operands decode exactly into f64; sums carry a
//! TwoSum error term), so every rounding mode is correct. `.ftz` flushes subnormal inputs and
//! results; `.sat` clamps the result to [0, 1] (NaN gives +0). NaN results are the canonical
//! NaN `0x7fff`.

use super::float::zero_sum;
use super::round::{narrow_nan_f64, round_f64, two_sum, Format, Mode, BF16, F16};
use crate::ir::Rounding;

/// f16 → f32, exact; NaN gives the canonical f32 NaN.
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    super::float::canonicalize_f32(F16.to_f64(h as u64) as f32)
}

/// bf16 → f32, exact: the bits shifted up, so a NaN keeps its sign and payload and is not even
/// quieted (measured on an H200: `cvt.f32.bf16` of `0x7f81` is `0x7f810000`).
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 → f16 rounded in `rnd`; `satfinite` clamps overflow (and ±∞) to ±65504.
#[inline]
pub fn f32_to_f16(x: f32, rnd: Rounding, satfinite: bool) -> u16 {
    round_f64(x as f64, 0.0, F16, Mode::of(rnd), satfinite) as u16
}

/// f32 → bf16 rounded in `rnd`; `satfinite` clamps overflow (and ±∞) to the largest bf16.
#[inline]
pub fn f32_to_bf16(x: f32, rnd: Rounding, satfinite: bool) -> u16 {
    round_f64(x as f64, 0.0, BF16, Mode::of(rnd), satfinite) as u16
}

/// f64 → f16 with a single rounding (not through f32).
#[inline]
pub fn f64_to_f16(x: f64, rnd: Rounding, satfinite: bool) -> u16 {
    if x.is_nan() {
        return narrow_nan_f64(x, F16) as u16;
    }
    round_f64(x, 0.0, F16, Mode::of(rnd), satfinite) as u16
}

/// f64 → bf16 with a single rounding (not through f32).
#[inline]
pub fn f64_to_bf16(x: f64, rnd: Rounding, satfinite: bool) -> u16 {
    if x.is_nan() {
        return narrow_nan_f64(x, BF16) as u16;
    }
    round_f64(x, 0.0, BF16, Mode::of(rnd), satfinite) as u16
}

/// Flushes a subnormal 16-bit pattern of `fmt` to a zero of the same sign.
#[inline]
fn flush(fmt: Format, h: u16) -> u16 {
    if (h as u64) & (fmt.inf_bits()) == 0 {
        h & 0x8000
    } else {
        h
    }
}

/// Decodes an operand, flushing it first under `.ftz`.
#[inline]
fn operand(fmt: Format, h: u16, ftz: bool) -> f64 {
    fmt.to_f64(if ftz { flush(fmt, h) } else { h } as u64)
}

/// Rounds the exact result `s + t`, then applies `.ftz` and `.sat` to it.
#[inline]
fn finish(fmt: Format, s: f64, t: f64, mode: Mode, ftz: bool, sat: bool) -> u16 {
    let mut h = round_f64(s, t, fmt, mode, false) as u16;
    if ftz {
        h = flush(fmt, h);
    }
    if sat {
        let v = fmt.to_f64(h as u64);
        h = if v > 1.0 {
            round_f64(1.0, 0.0, fmt, Mode::NearestEven, false) as u16
        } else if v > 0.0 {
            h
        } else {
            0
        };
    }
    h
}

/// The exact sum of two decoded values as (rounded, error), with IEEE's sign for exact zeros.
#[inline]
fn sum(x: f64, y: f64, mode: Mode) -> (f64, f64) {
    let (s, t) = two_sum(x, y);
    if s == 0.0 {
        let neg = zero_sum(
            x.is_sign_negative(),
            y.is_sign_negative(),
            x == 0.0,
            y == 0.0,
            mode,
        );
        return (if neg { -0.0 } else { 0.0 }, 0.0);
    }
    (s, t)
}

#[inline]
fn add(fmt: Format, a: u16, b: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
    let mode = Mode::of(rnd);
    let (s, t) = sum(operand(fmt, a, ftz), operand(fmt, b, ftz), mode);
    finish(fmt, s, t, mode, ftz, sat)
}

#[inline]
fn mul(fmt: Format, a: u16, b: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
    let p = operand(fmt, a, ftz) * operand(fmt, b, ftz);
    finish(fmt, p, 0.0, Mode::of(rnd), ftz, sat)
}

#[inline]
fn fma(fmt: Format, a: u16, b: u16, c: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
    let mode = Mode::of(rnd);
    let p = operand(fmt, a, ftz) * operand(fmt, b, ftz);
    let z = operand(fmt, c, ftz);
    let (s, t) = if p.is_finite() && z.is_finite() {
        sum(p, z, mode)
    } else {
        (p + z, 0.0)
    };
    finish(fmt, s, t, mode, ftz, sat)
}

#[inline]
fn min_max(fmt: Format, a: u16, b: u16, max: bool, nan_propagating: bool) -> u16 {
    let (x, y) = (fmt.to_f64(a as u64), fmt.to_f64(b as u64));
    if x.is_nan() || y.is_nan() {
        return if nan_propagating || (x.is_nan() && y.is_nan()) {
            0x7fff
        } else if x.is_nan() {
            b
        } else {
            a
        };
    }
    let a_first = if max {
        x > y || (x == y && a & 0x8000 == 0)
    } else {
        x < y || (x == y && a & 0x8000 != 0)
    };
    if a_first {
        a
    } else {
        b
    }
}

/// Applies a 16-bit operation to both halves of packed pairs.
#[inline]
fn lanes(a: u32, b: u32, f: impl Fn(u16, u16) -> u16) -> u32 {
    f(a as u16, b as u16) as u32 | (f((a >> 16) as u16, (b >> 16) as u16) as u32) << 16
}

macro_rules! half_family {
    ($fmt:expr, $name:literal, $add:ident, $sub:ident, $mul:ident, $fma:ident, $min:ident,
     $max:ident, $neg:ident, $abs:ident, $add2:ident, $sub2:ident, $mul2:ident, $fma2:ident,
     $min2:ident, $max2:ident, $neg2:ident, $abs2:ident) => {
        #[doc = concat!("`add{.rnd}{.ftz}{.sat}.", $name, "`.")]
        #[inline]
        pub fn $add(a: u16, b: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
            add($fmt, a, b, rnd, ftz, sat)
        }
        #[doc = concat!("`sub{.rnd}{.ftz}{.sat}.", $name, "`.")]
        #[inline]
        pub fn $sub(a: u16, b: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
            add($fmt, a, b ^ 0x8000, rnd, ftz, sat)
        }
        #[doc = concat!("`mul{.rnd}{.ftz}{.sat}.", $name, "`.")]
        #[inline]
        pub fn $mul(a: u16, b: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
            mul($fmt, a, b, rnd, ftz, sat)
        }
        #[doc = concat!("`fma.rnd{.ftz}{.sat}.", $name, "`: one rounding.")]
        #[inline]
        pub fn $fma(a: u16, b: u16, c: u16, rnd: Rounding, ftz: bool, sat: bool) -> u16 {
            fma($fmt, a, b, c, rnd, ftz, sat)
        }
        #[doc = concat!("`min{.NaN}.", $name, "`: NaN rules as for f32; −0 < +0.")]
        #[inline]
        pub fn $min(a: u16, b: u16, nan_propagating: bool) -> u16 {
            min_max($fmt, a, b, false, nan_propagating)
        }
        #[doc = concat!("`max{.NaN}.", $name, "`: NaN rules as for f32; −0 < +0.")]
        #[inline]
        pub fn $max(a: u16, b: u16, nan_propagating: bool) -> u16 {
            min_max($fmt, a, b, true, nan_propagating)
        }
        #[doc = concat!("`neg.", $name, "`: flips the sign bit.")]
        #[inline]
        pub fn $neg(a: u16) -> u16 {
            a ^ 0x8000
        }
        #[doc = concat!("`abs.", $name, "`: clears the sign bit.")]
        #[inline]
        pub fn $abs(a: u16) -> u16 {
            a & 0x7fff
        }
        #[doc = concat!("`add` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $add2(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
            lanes(a, b, |x, y| $add(x, y, rnd, ftz, sat))
        }
        #[doc = concat!("`sub` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $sub2(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
            lanes(a, b, |x, y| $sub(x, y, rnd, ftz, sat))
        }
        #[doc = concat!("`mul` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $mul2(a: u32, b: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
            lanes(a, b, |x, y| $mul(x, y, rnd, ftz, sat))
        }
        #[doc = concat!("`fma` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $fma2(a: u32, b: u32, c: u32, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
            let lo = $fma(a as u16, b as u16, c as u16, rnd, ftz, sat) as u32;
            let hi = $fma(
                (a >> 16) as u16,
                (b >> 16) as u16,
                (c >> 16) as u16,
                rnd,
                ftz,
                sat,
            );
            lo | (hi as u32) << 16
        }
        #[doc = concat!("`min` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $min2(a: u32, b: u32, nan_propagating: bool) -> u32 {
            lanes(a, b, |x, y| $min(x, y, nan_propagating))
        }
        #[doc = concat!("`max` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $max2(a: u32, b: u32, nan_propagating: bool) -> u32 {
            lanes(a, b, |x, y| $max(x, y, nan_propagating))
        }
        #[doc = concat!("`neg` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $neg2(a: u32) -> u32 {
            a ^ 0x8000_8000
        }
        #[doc = concat!("`abs` on packed `", $name, "x2`.")]
        #[inline]
        pub fn $abs2(a: u32) -> u32 {
            a & 0x7fff_7fff
        }
    };
}

half_family!(
    F16, "f16", add_f16, sub_f16, mul_f16, fma_f16, min_f16, max_f16, neg_f16, abs_f16, add_f16x2,
    sub_f16x2, mul_f16x2, fma_f16x2, min_f16x2, max_f16x2, neg_f16x2, abs_f16x2
);
half_family!(
    BF16, "bf16", add_bf16, sub_bf16, mul_bf16, fma_bf16, min_bf16, max_bf16, neg_bf16, abs_bf16,
    add_bf16x2, sub_bf16x2, mul_bf16x2, fma_bf16x2, min_bf16x2, max_bf16x2, neg_bf16x2, abs_bf16x2
);

/// `.relu` of `fma.rn.relu.f16` and `max.relu.f16` (applied to the rounded result): negative
/// values and −0 become +0 (−0 assumed), NaN becomes the canonical NaN `0x7fff`.
#[inline]
pub fn relu_f16(h: u16) -> u16 {
    if h & 0x7fff > 0x7c00 {
        0x7fff
    } else if h & 0x8000 != 0 {
        0
    } else {
        h
    }
}

/// `.relu` on a bf16: negative (and −0) → +0, NaN → `0x7fff`.
#[inline]
pub fn relu_bf16(h: u16) -> u16 {
    if h & 0x7fff > 0x7f80 {
        0x7fff
    } else if h & 0x8000 != 0 {
        0
    } else {
        h
    }
}

/// `min.xorsign.abs` / `max.xorsign.abs` on f16 (`bf16 == false`) or bf16: the min (or max) of
/// |a| and |b| with the sign `sign(a) XOR sign(b)`; a NaN result is the canonical NaN.
#[inline]
pub fn minmax_xorsign_abs_half(
    a: u16,
    b: u16,
    bf16: bool,
    max: bool,
    nan_propagating: bool,
) -> u16 {
    let fmt = if bf16 { BF16 } else { F16 };
    let m = min_max(fmt, a & 0x7fff, b & 0x7fff, max, nan_propagating);
    if fmt.to_f64(m as u64).is_nan() {
        return 0x7fff;
    }
    m | ((a ^ b) & 0x8000)
}

/// `.ftz` on an f16 operand: a subnormal becomes a zero of the same sign.
#[inline]
pub fn flush_f16(h: u16) -> u16 {
    flush(F16, h)
}

/// `.ftz` on a bf16 operand.
#[inline]
pub fn flush_bf16(h: u16) -> u16 {
    flush(BF16, h)
}

#[cfg(test)]
#[path = "half_tests.rs"]
mod tests;
