//! f64 arithmetic with PTX's rounding modifiers.
//!
//! Round-to-nearest is the host's IEEE operation. The directed modes (`.rz`, `.rm`, `.rp`):
//! - `add`/`sub`: TwoSum gives the exact error of the nearest sum, which says whether to step
//!   one ulp; overflow is decided from the direction.
//! - `mul`, `div`, `fma`: exact integer arithmetic on the significands (128-bit products and
//!   quotients with a sticky bit), rounded once; exact across overflow and subnormal results.
//! - `sqrt`: the fma residual `a − r²` (exact; tiny inputs are scaled by an even power of two).
//!
//! NaN results keep f64 payloads, as the PTX ISA says double-precision instructions do: a NaN
//! operand comes back quieted, and an invalid operation on numbers (∞ − ∞, 0 × ∞, 0/0, √−1)
//! gives the default NaN `0xfff8000000000000` (sign set). With two NaN operands `add`, `sub`,
//! `mul` and `fma` return the second (`b`), `div` the first (`a`); `sub` does not negate a NaN
//! `b`. All as measured on an H200 (`tests/data/numeric_probe_h200.txt`).

use super::float::{canonical_nan_f64, zero_sum};
use super::round::{decompose, pow2, round_wide, Mode, F64};
use crate::ir::Rounding;

/// The NaN result of an f64 operation: `result` itself when it is not NaN, else the first NaN
/// among the operands in the order given, with its quiet bit set, else (an invalid operation)
/// the default NaN [`canonical_nan_f64`]. Callers pass the operands in the GPU's priority order
/// (`b, a, c` for `add`/`mul`/`fma`, `a, b` for `div`).
#[inline]
pub fn nan_f64(result: f64, a: f64, b: f64, c: f64) -> f64 {
    if !result.is_nan() {
        return result;
    }
    for x in [a, b, c] {
        if x.is_nan() {
            return f64::from_bits(x.to_bits() | 0x0008_0000_0000_0000);
        }
    }
    canonical_nan_f64()
}

/// The next f64 toward +∞ (finite input).
#[inline]
fn next_up(x: f64) -> f64 {
    let b = x.to_bits();
    if x == 0.0 {
        f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

/// The next f64 toward −∞ (finite input).
#[inline]
fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Corrects the nearest result `s` of an operation whose exact result is `s + t` to `mode`.
#[inline]
fn adjust(s: f64, t: f64, mode: Mode) -> f64 {
    if t == 0.0 {
        return s;
    }
    match mode {
        Mode::Down if t < 0.0 => next_down(s),
        Mode::Up if t > 0.0 => next_up(s),
        Mode::TowardZero if (t > 0.0) != (s > 0.0) => {
            if s > 0.0 {
                next_down(s)
            } else {
                next_up(s)
            }
        }
        _ => s,
    }
}

/// The directed result of a finite operation whose nearest result overflowed to `inf`.
#[inline]
fn overflow(inf: f64, mode: Mode) -> f64 {
    let to_max = match mode {
        Mode::TowardZero => true,
        Mode::Down => inf > 0.0,
        Mode::Up => inf < 0.0,
        Mode::NearestEven | Mode::NearestAway => false,
    };
    if to_max {
        f64::MAX.copysign(inf)
    } else {
        inf
    }
}

/// `add{.rnd}.f64`.
#[inline]
pub fn add_f64(a: f64, b: f64, rnd: Rounding) -> f64 {
    let mode = Mode::of(rnd);
    let s = a + b;
    if mode == Mode::NearestEven || !s.is_finite() {
        if s.is_infinite() && a.is_finite() && b.is_finite() {
            return overflow(s, mode);
        }
        return nan_f64(s, b, a, 0.0);
    }
    if s == 0.0 {
        let neg = zero_sum(
            a.is_sign_negative(),
            b.is_sign_negative(),
            a == 0.0,
            b == 0.0,
            mode,
        );
        return if neg { -0.0 } else { 0.0 };
    }
    let (s, t) = if a.abs() >= b.abs() {
        fast_two_sum(a, b)
    } else {
        fast_two_sum(b, a)
    };
    adjust(s, t, mode)
}

/// Fast2Sum (|a| ≥ |b|): immune to spurious overflow in the error term.
#[inline]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let z = s - a;
    (s, b - z)
}

/// `sub{.rnd}.f64`: `a + (−b)`, except that a NaN `b` propagates with its own sign.
#[inline]
pub fn sub_f64(a: f64, b: f64, rnd: Rounding) -> f64 {
    if b.is_nan() {
        return nan_f64(b, b, a, 0.0);
    }
    add_f64(a, -b, rnd)
}

/// `(negative, significand, exponent)` of a finite nonzero f64 with the significand's top bit
/// at bit 52 (subnormals normalized).
#[inline]
fn normalized(x: f64) -> (bool, u64, i32) {
    let (neg, m, e) = decompose(x);
    let shift = m.leading_zeros() as i32 - 11;
    (neg, m << shift, e - shift)
}

/// Whether both operands are finite and nonzero (the cases the exact paths handle).
#[inline]
fn ordinary(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && a != 0.0 && b != 0.0
}

/// `mul{.rnd}.f64`.
#[inline]
pub fn mul_f64(a: f64, b: f64, rnd: Rounding) -> f64 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven || !ordinary(a, b) {
        return nan_f64(a * b, b, a, 0.0);
    }
    let (na, ma, ea) = decompose(a);
    let (nb, mb, eb) = decompose(b);
    f64::from_bits(round_wide(
        na != nb,
        ma as u128 * mb as u128,
        ea + eb,
        F64,
        mode,
    ))
}

/// `div.rnd.f64`.
#[inline]
pub fn div_f64(a: f64, b: f64, rnd: Rounding) -> f64 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven || !ordinary(a, b) {
        return nan_f64(a / b, a, b, 0.0);
    }
    let (na, ma, ea) = normalized(a);
    let (nb, mb, eb) = normalized(b);
    let num = (ma as u128) << 75;
    let (q, r) = (num / mb as u128, num % mb as u128);
    let mant = q | (r != 0) as u128;
    f64::from_bits(round_wide(na != nb, mant, ea - eb - 75, F64, mode))
}

/// `rcp.rnd.f64`: the correctly rounded 1/a.
#[inline]
pub fn rcp_f64(a: f64, rnd: Rounding) -> f64 {
    div_f64(1.0, a, rnd)
}

/// `sqrt.rnd.f64`.
#[inline]
pub fn sqrt_f64(a: f64, rnd: Rounding) -> f64 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven || a.is_nan() || a <= 0.0 || a.is_infinite() {
        return nan_f64(a.sqrt(), a, 0.0, 0.0);
    }
    if a < pow2(-900) {
        // sqrt(a·2^1000) = sqrt(a)·2^500; the result is normal, so scaling back is exact.
        let scaled = a * pow2(1000);
        let r = scaled.sqrt();
        return adjust(r, (-r).mul_add(r, scaled), mode) * pow2(-500);
    }
    let r = a.sqrt();
    adjust(r, (-r).mul_add(r, a), mode)
}

/// `fma.rnd.f64` / `mad.rnd.f64`: `a × b + c` with a single rounding.
#[inline]
pub fn fma_f64(a: f64, b: f64, c: f64, rnd: Rounding) -> f64 {
    let mode = Mode::of(rnd);
    if mode == Mode::NearestEven || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return nan_f64(a.mul_add(b, c), b, a, c);
    }
    let p_neg = a.is_sign_negative() != b.is_sign_negative();
    if a == 0.0 || b == 0.0 {
        if c != 0.0 {
            return c;
        }
        let neg = zero_sum(p_neg, c.is_sign_negative(), true, true, mode);
        return if neg { -0.0 } else { 0.0 };
    }
    let (_, ma, ea) = decompose(a);
    let (_, mb, eb) = decompose(b);
    let product = ma as u128 * mb as u128;
    if c == 0.0 {
        return f64::from_bits(round_wide(p_neg, product, ea + eb, F64, mode));
    }
    let (c_neg, mc, ec) = decompose(c);
    // Both significands with their top bit at bit 125, leaving room for a carry.
    let (p, ep) = to_bit125(product, ea + eb);
    let (cm, ec) = to_bit125(mc as u128, ec);
    let ((big, big_neg, exp), (small, small_neg, small_exp)) = if ep > ec || (ep == ec && p >= cm) {
        ((p, p_neg, ep), (cm, c_neg, ec))
    } else {
        ((cm, c_neg, ec), (p, p_neg, ep))
    };
    let d = (exp - small_exp) as u32;
    let small = match d {
        0 => small,
        1..=126 => (small >> d) | (small & ((1u128 << d) - 1) != 0) as u128,
        _ => 1,
    };
    let mag = if big_neg == small_neg {
        big + small
    } else {
        big - small
    };
    if mag == 0 {
        return if mode == Mode::Down { -0.0 } else { 0.0 };
    }
    f64::from_bits(round_wide(big_neg, mag, exp, F64, mode))
}

/// Shifts a nonzero significand so its top bit is bit 125, adjusting the exponent.
#[inline]
fn to_bit125(m: u128, e: i32) -> (u128, i32) {
    let shift = m.leading_zeros() as i32 - 2;
    (m << shift, e - shift)
}

#[cfg(test)]
#[path = "directed_tests.rs"]
mod tests;
