//! f32 arithmetic with PTX's rounding modifiers, and the f32/f64 helpers every float instruction
//! shares: `.ftz` flushing, `.sat` clamping, `min`/`max`, canonical NaNs.
//!
//! Round-to-nearest uses the host's IEEE operations directly (they are correctly rounded, as the
//! GPU's are). The directed modes compute the exact result as an f64 plus an error term (f32
//! products are exact in f64; sums use TwoSum; quotients and roots an fma residual) and round
//! that once to f32, so `.rz`/`.rm`/`.rp` results are exact, including overflow to the largest
//! finite value and underflow to the smallest subnormal.
//!
//! Every NaN an arithmetic operation produces is the GPU's canonical NaN (`0x7fffffff` for f32).

use super::round::{self, two_sum, Mode, F32};
use crate::ir::Rounding;

// The f64 forms live in `directed`; they are reachable from here too.
pub use super::directed::{add_f64, div_f64, fma_f64, mul_f64, rcp_f64, sqrt_f64, sub_f64};

/// The NaN NVIDIA GPUs produce for f32 results: `0x7fffffff`.
#[inline]
pub fn canonical_nan_f32() -> f32 {
    f32::from_bits(0x7fff_ffff)
}

/// The NaN NVIDIA GPUs give for f64 results of invalid operations on numbers (∞ − ∞, 0 × ∞,
/// 0/0, √−1): `0xfff8000000000000`, the quiet NaN with the sign bit set (measured on an H200).
/// NaN operands propagate instead (see `directed`).
#[inline]
pub fn canonical_nan_f64() -> f64 {
    f64::from_bits(0xfff8_0000_0000_0000)
}

/// Replaces any NaN by the canonical f32 NaN.
///
/// Works on the bit pattern: the optimizer treats all NaNs as interchangeable in float
/// selects (it may fold `if x.is_nan() { NAN } else { x }` into `x`), but not in integer ones.
#[inline]
pub fn canonicalize_f32(x: f32) -> f32 {
    let b = x.to_bits();
    f32::from_bits(if b & 0x7fff_ffff > 0x7f80_0000 {
        0x7fff_ffff
    } else {
        b
    })
}

/// Replaces any NaN by the canonical f64 NaN (on the bit pattern, as [`canonicalize_f32`]).
#[inline]
pub fn canonicalize_f64(x: f64) -> f64 {
    let b = x.to_bits();
    let nan = b & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000;
    f64::from_bits(if nan { 0xfff8_0000_0000_0000 } else { b })
}

/// `.ftz`: a subnormal becomes a zero of the same sign; everything else is unchanged.
#[inline]
pub fn flush_f32(x: f32) -> f32 {
    let b = x.to_bits();
    if b & 0x7f80_0000 == 0 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        x
    }
}

/// Flushes an f64 subnormal to a zero of the same sign (`rcp.approx.ftz.f64`).
#[inline]
pub fn flush_f64(x: f64) -> f64 {
    let b = x.to_bits();
    if b & 0x7ff0_0000_0000_0000 == 0 {
        f64::from_bits(b & 0x8000_0000_0000_0000)
    } else {
        x
    }
}

/// `.sat`: clamps to [0, 1]; NaN gives +0. Assumed: −0 (and every negative) gives +0.
#[inline]
pub fn saturate_f32(x: f32) -> f32 {
    if x > 1.0 {
        1.0
    } else if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// `.sat` for f64 (`cvt.sat.f64.*`): clamps to [0, 1]; NaN gives +0.
#[inline]
pub fn saturate_f64(x: f64) -> f64 {
    if x > 1.0 {
        1.0
    } else if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// The f32 result of the exact value `s + t`, rounded once in `mode`.
#[inline]
fn finish(s: f64, t: f64, mode: Mode) -> f32 {
    f32::from_bits(round::round_f64(s, t, F32, mode, false) as u32)
}

/// The sign of an exact zero sum `x + y` (IEEE 754 §6.3): the common sign when both are zeros of
/// one sign, otherwise −0 rounding down and +0 in every other mode.
#[inline]
pub(crate) fn zero_sum(x_neg: bool, y_neg: bool, x_zero: bool, y_zero: bool, mode: Mode) -> bool {
    if x_zero && y_zero && x_neg == y_neg {
        x_neg
    } else {
        mode == Mode::Down
    }
}

/// Signed zero as an f32.
#[inline]
fn zero32(neg: bool) -> f32 {
    if neg {
        -0.0
    } else {
        0.0
    }
}

/// `add{.rnd}.f32`.
#[inline]
pub fn add_f32(a: f32, b: f32, rnd: Rounding) -> f32 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven {
        return canonicalize_f32(a + b);
    }
    let (s, t) = two_sum(a as f64, b as f64);
    if s == 0.0 {
        let neg = zero_sum(
            a.is_sign_negative(),
            b.is_sign_negative(),
            a == 0.0,
            b == 0.0,
            mode,
        );
        return zero32(neg);
    }
    finish(s, t, mode)
}

/// `sub{.rnd}.f32`.
#[inline]
pub fn sub_f32(a: f32, b: f32, rnd: Rounding) -> f32 {
    add_f32(a, -b, rnd)
}

/// `mul{.rnd}.f32`.
#[inline]
pub fn mul_f32(a: f32, b: f32, rnd: Rounding) -> f32 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven {
        return canonicalize_f32(a * b);
    }
    finish(a as f64 * b as f64, 0.0, mode)
}

/// `mul{.rnd}.ftz.f32`: subnormal operands are flushed, and so is a result that is tiny before
/// it is rounded to the normal range: the GPU detects tininess on the product rounded to 24
/// bits with an unbounded exponent, so a product just below 2^−126 that IEEE rounding would
/// carry up to 2^−126 still gives a signed zero (measured on an H200:
/// `mul.rn.ftz.sat.f32` of `0x00800000 × 0x3f7fffff` is `+0`).
#[inline]
pub fn mul_ftz_f32(a: f32, b: f32, rnd: Rounding) -> f32 {
    let (a, b) = (flush_f32(a), flush_f32(b));
    let p = a as f64 * b as f64; // exact
    if p != 0.0 && p.abs() < f32::MIN_POSITIVE as f64 {
        // Scaled by 2^64 the product is normal in f32, so rounding it there is rounding to 24
        // bits with an unbounded exponent.
        let scaled = round::round_f64(p * round::pow2(64), 0.0, F32, Mode::of(rnd), false);
        if f32::from_bits(scaled as u32).abs() < f32::MIN_POSITIVE * round::pow2(64) as f32 {
            return if p < 0.0 { -0.0 } else { 0.0 };
        }
    }
    flush_f32(mul_f32(a, b, rnd))
}

/// `div.rnd.f32` (IEEE-correct division; `.approx`/`.full` are in `approx`).
#[inline]
pub fn div_f32(a: f32, b: f32, rnd: Rounding) -> f32 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven {
        return canonicalize_f32(a / b);
    }
    let (a, b) = (a as f64, b as f64);
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return finish(q, 0.0, mode);
    }
    let rem = (-q).mul_add(b, a);
    finish(q, if b > 0.0 { rem } else { -rem }, mode)
}

/// `rcp.rnd.f32`: the correctly rounded 1/a.
#[inline]
pub fn rcp_f32(a: f32, rnd: Rounding) -> f32 {
    div_f32(1.0, a, rnd)
}

/// `sqrt.rnd.f32`.
#[inline]
pub fn sqrt_f32(a: f32, rnd: Rounding) -> f32 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven {
        return canonicalize_f32(a.sqrt());
    }
    let a = a as f64;
    let r = a.sqrt();
    if !r.is_finite() || r == 0.0 {
        return finish(r, 0.0, mode);
    }
    finish(r, (-r).mul_add(r, a), mode)
}

/// `fma.rnd.f32` / `mad.rnd.f32`: `a × b + c` with a single rounding.
#[inline]
pub fn fma_f32(a: f32, b: f32, c: f32, rnd: Rounding) -> f32 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven {
        return canonicalize_f32(a.mul_add(b, c));
    }
    let p = a as f64 * b as f64;
    let c64 = c as f64;
    if !p.is_finite() || !c.is_finite() {
        return finish(p + c64, 0.0, mode);
    }
    let (s, t) = two_sum(p, c64);
    if s == 0.0 {
        let neg = zero_sum(
            p.is_sign_negative(),
            c.is_sign_negative(),
            p == 0.0,
            c == 0.0,
            mode,
        );
        return zero32(neg);
    }
    finish(s, t, mode)
}

macro_rules! min_max {
    ($min:ident, $max:ident, $t:ty, $nan:expr, $what:literal, $both:literal) => {
        #[doc = concat!("`min{.NaN}.", $what, "`: one NaN operand gives the other operand (both NaN: ")]
        #[doc = concat!($both, "); with `nan_propagating` (`.NaN`) any NaN gives that NaN too.")]
        /// −0 is less than +0.
        #[inline]
        pub fn $min(a: $t, b: $t, nan_propagating: bool) -> $t {
            if a.is_nan() || b.is_nan() {
                return if nan_propagating || (a.is_nan() && b.is_nan()) {
                    $nan(a, b)
                } else if a.is_nan() {
                    b
                } else {
                    a
                };
            }
            if a < b || (a == b && a.is_sign_negative()) {
                a
            } else {
                b
            }
        }

        #[doc = concat!("`max{.NaN}.", $what, "`: NaN handling as for `min`; +0 is greater than −0.")]
        #[inline]
        pub fn $max(a: $t, b: $t, nan_propagating: bool) -> $t {
            if a.is_nan() || b.is_nan() {
                return $min(a, b, nan_propagating);
            }
            if a > b || (a == b && a.is_sign_positive()) {
                a
            } else {
                b
            }
        }
    };
}

min_max!(
    min_f32,
    max_f32,
    f32,
    |_, _| canonical_nan_f32(),
    "f32",
    "the canonical NaN"
);
min_max!(
    min_f64,
    max_f64,
    f64,
    |a, b| super::directed::nan_f64(f64::NAN, b, a, 0.0),
    "f64",
    "`b` quieted, as measured on an H200; `.NaN` does not exist for f64"
);

/// `min.xorsign.abs.f32` / `max.xorsign.abs.f32`: the min (or max) of |a| and |b|, carrying the
/// sign `sign(a) XOR sign(b)`. A NaN result is the canonical NaN (its sign is not set).
#[inline]
pub fn minmax_xorsign_abs_f32(a: f32, b: f32, max: bool, nan_propagating: bool) -> f32 {
    let (x, y) = (a.abs(), b.abs());
    let m = if max {
        max_f32(x, y, nan_propagating)
    } else {
        min_f32(x, y, nan_propagating)
    };
    if m.is_nan() {
        return m;
    }
    let sign = (a.to_bits() ^ b.to_bits()) & 0x8000_0000;
    f32::from_bits(m.to_bits() | sign)
}

/// `copysign.f32 d, a, b`: `b` with the sign of `a` (PTX's operand order).
#[inline]
pub fn copysign_f32(a: f32, b: f32) -> f32 {
    f32::from_bits((b.to_bits() & 0x7fff_ffff) | (a.to_bits() & 0x8000_0000))
}

/// `copysign.f64 d, a, b`: `b` with the sign of `a`.
#[inline]
pub fn copysign_f64(a: f64, b: f64) -> f64 {
    b.copysign(a)
}

/// `neg.f32`: flips the sign bit. A NaN gives the canonical NaN: PTX leaves it unspecified, and
/// the GPU compiles `neg.f32` to an `FADD` with negated operand, which canonicalizes (assumed).
#[inline]
pub fn neg_f32(a: f32) -> f32 {
    canonicalize_f32(f32::from_bits(a.to_bits() ^ 0x8000_0000))
}

/// `abs.f32`: clears the sign bit. A NaN gives the canonical NaN (as for [`neg_f32`]).
#[inline]
pub fn abs_f32(a: f32) -> f32 {
    canonicalize_f32(f32::from_bits(a.to_bits() & 0x7fff_ffff))
}

/// `neg.f64`: flips the sign bit. A NaN comes back quieted with its sign unchanged (measured on
/// an H200: `neg.f64` of `0x7ff0000000000001` is `0x7ff8000000000001`).
#[inline]
pub fn neg_f64(a: f64) -> f64 {
    if a.is_nan() {
        return f64::from_bits(a.to_bits() | 0x0008_0000_0000_0000);
    }
    f64::from_bits(a.to_bits() ^ (1 << 63))
}

/// `abs.f64`: clears the sign bit. A NaN comes back quieted with its sign unchanged (measured
/// on an H200: `abs.f64` of `0xfff8000000000000` is itself).
#[inline]
pub fn abs_f64(a: f64) -> f64 {
    if a.is_nan() {
        return f64::from_bits(a.to_bits() | 0x0008_0000_0000_0000);
    }
    f64::from_bits(a.to_bits() & !(1 << 63))
}

/// `atom.add.f32` / `red.add.f32`: round to nearest with subnormal operands and result flushed
/// to signed zero, as the PTX ISA specifies for f32 atomic addition (f64 and the `.noftz`
/// f16/bf16 forms are plain `add.rn`).
#[inline]
pub fn atom_add_f32(a: f32, b: f32) -> f32 {
    flush_f32(canonicalize_f32(flush_f32(a) + flush_f32(b)))
}

#[cfg(test)]
#[path = "float_tests.rs"]
mod tests;
