//! Integer arithmetic: `mul`/`mad` (`.lo`, `.hi`, `.wide`), `mul24`/`mad24`, `div`, `rem`,
//! `min`/`max`, `abs`, `neg`, saturating and carry-chained `add`/`sub`, shifts, `sad`, `dp4a`,
//! `dp2a`.
//!
//! Operands are register values (`u64`, only the low `width(ty)` bits are read); results are
//! masked to the type's width, i.e. zero-extended, as registers hold them. Signedness comes from
//! the type (`.sN` signed; `.uN` and `.bN` unsigned).

use crate::ir::ScalarType;

// The bit-manipulation instructions live in `bits`; they are reachable from here too.
pub use super::bits::{bfe, bfi, bfind, bmsk, brev, clz, fns, lop3, popc, prmt, shf, szext};

/// Width of an integer type in bits (`.u16x2`/`.s16x2`: 32; at most 64, so that a type no
/// integer instruction takes, such as `.b128`, cannot make a shift overflow).
#[inline]
pub fn width(ty: ScalarType) -> u32 {
    (ty.size() * 8).min(64)
}

/// The low `width(ty)` bits of `v`.
#[inline]
pub fn mask(ty: ScalarType, v: u64) -> u64 {
    let w = width(ty);
    if w >= 64 {
        v
    } else {
        v & ((1u64 << w) - 1)
    }
}

/// The low `width(ty)` bits of `v`, sign-extended.
#[inline]
pub fn sext(ty: ScalarType, v: u64) -> i64 {
    let unused = 64 - width(ty).min(64);
    ((v << unused) as i64) >> unused
}

/// The value of operand `v` as typed: sign-extended for signed types, masked otherwise.
#[inline]
pub fn value(ty: ScalarType, v: u64) -> i128 {
    if ty.is_signed() {
        sext(ty, v) as i128
    } else {
        mask(ty, v) as i128
    }
}

/// `mul.lo` (wrapping).
#[inline]
pub fn mul_lo(ty: ScalarType, a: u64, b: u64) -> u64 {
    mask(ty, a.wrapping_mul(b))
}

/// `mul.hi`: the high `width` bits of the full `2·width`-bit product.
#[inline]
pub fn mul_hi(ty: ScalarType, a: u64, b: u64) -> u64 {
    let w = width(ty);
    let p = if ty.is_signed() {
        (value(ty, a) * value(ty, b)) as u128
    } else {
        mask(ty, a) as u128 * mask(ty, b) as u128
    };
    mask(ty, (p >> w) as u64)
}

/// `mul.wide` (16 → 32 and 32 → 64 bits): the full product, masked to twice the width.
#[inline]
pub fn mul_wide(ty: ScalarType, a: u64, b: u64) -> u64 {
    let p = value(ty, a).wrapping_mul(value(ty, b)) as u64;
    let w = 2 * width(ty);
    if w >= 64 {
        p
    } else {
        p & ((1u64 << w) - 1)
    }
}

/// `mad.lo` (wrapping).
#[inline]
pub fn mad_lo(ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    mask(ty, a.wrapping_mul(b).wrapping_add(c))
}

/// `mad.hi{.sat}`: `mul.hi(a, b) + c`; `.sat` (only `.s32`) clamps the sum to the s32 range.
#[inline]
pub fn mad_hi(ty: ScalarType, a: u64, b: u64, c: u64, sat: bool) -> u64 {
    let hi = mul_hi(ty, a, b);
    if sat {
        return add_sat_s32(hi as i32, c as i32) as u32 as u64;
    }
    mask(ty, hi.wrapping_add(c))
}

/// `mad.wide`: `mul.wide(a, b) + c`, `c` and the result twice the width.
#[inline]
pub fn mad_wide(ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    let s = mul_wide(ty, a, b).wrapping_add(c);
    let w = 2 * width(ty);
    if w >= 64 {
        s
    } else {
        s & ((1u64 << w) - 1)
    }
}

/// `mul24.lo`/`mul24.hi`: the 48-bit product of the low 24 bits of each operand (sign-extended
/// for `.s32`); `.lo` gives bits 0–31, `.hi` bits 16–47.
#[inline]
pub fn mul24(ty: ScalarType, a: u64, b: u64, hi: bool) -> u64 {
    let p = if ty.is_signed() {
        (((a << 40) as i64) >> 40).wrapping_mul(((b << 40) as i64) >> 40)
    } else {
        ((a & 0xff_ffff) * (b & 0xff_ffff)) as i64
    };
    (if hi { p >> 16 } else { p }) as u64 & 0xffff_ffff
}

/// `mad24.lo`/`mad24.hi{.sat}`: `mul24(a, b) + c`; `.sat` (only `.hi.s32`) clamps to s32.
#[inline]
pub fn mad24(ty: ScalarType, a: u64, b: u64, c: u64, hi: bool, sat: bool) -> u64 {
    let p = mul24(ty, a, b, hi);
    if sat {
        return add_sat_s32(p as i32, c as i32) as u32 as u64;
    }
    p.wrapping_add(c) & 0xffff_ffff
}

/// `div`: truncating division. Division by zero gives all ones (what the GPU's division
/// sequence leaves: assumed for every width); `MIN / −1` wraps to `MIN`.
#[inline]
pub fn div_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    if mask(ty, b) == 0 {
        return mask(ty, u64::MAX);
    }
    if ty.is_signed() {
        mask(ty, sext(ty, a).wrapping_div(sext(ty, b)) as u64)
    } else {
        mask(ty, a) / mask(ty, b)
    }
}

/// `rem`: remainder with the sign of the dividend. By zero: all ones (assumed, as for `div`).
#[inline]
pub fn rem_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    if mask(ty, b) == 0 {
        return mask(ty, u64::MAX);
    }
    if ty.is_signed() {
        mask(ty, sext(ty, a).wrapping_rem(sext(ty, b)) as u64)
    } else {
        mask(ty, a) % mask(ty, b)
    }
}

/// Applies a scalar operation per 16-bit lane for `.u16x2`/`.s16x2`, or once otherwise.
#[inline]
fn per_lane(ty: ScalarType, a: u64, b: u64, f: impl Fn(ScalarType, u64, u64) -> u64) -> u64 {
    let lane = match ty {
        ScalarType::U16x2 => ScalarType::U16,
        ScalarType::S16x2 => ScalarType::S16,
        _ => return f(ty, a, b),
    };
    f(lane, a, b) & 0xffff | (f(lane, a >> 16, b >> 16) & 0xffff) << 16
}

/// `min` (per lane for `.u16x2`/`.s16x2`).
#[inline]
pub fn min_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| {
        mask(t, if value(t, x) <= value(t, y) { x } else { y })
    })
}

/// `max` (per lane for `.u16x2`/`.s16x2`).
#[inline]
pub fn max_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| {
        mask(t, if value(t, x) >= value(t, y) { x } else { y })
    })
}

/// `.relu` of `max.relu.s32`/`.s16x2`: negative (signed) values become 0, per lane.
#[inline]
pub fn relu_int(ty: ScalarType, a: u64) -> u64 {
    per_lane(
        ty,
        a,
        0,
        |t, x, _| if value(t, x) < 0 { 0 } else { mask(t, x) },
    )
}

/// `add` (wrapping; per lane for `.u16x2`/`.s16x2`).
#[inline]
pub fn add_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| mask(t, x.wrapping_add(y)))
}

/// `sub` (wrapping; per lane for `.u16x2`/`.s16x2`).
#[inline]
pub fn sub_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| mask(t, x.wrapping_sub(y)))
}

/// `abs` (wrapping: `abs(MIN) == MIN`).
#[inline]
pub fn abs_int(ty: ScalarType, a: u64) -> u64 {
    mask(ty, sext(ty, a).wrapping_abs() as u64)
}

/// `neg` (wrapping).
#[inline]
pub fn neg_int(ty: ScalarType, a: u64) -> u64 {
    mask(ty, a.wrapping_neg())
}

/// `add.sat` for `.s32`, `.u32`, `.s16x2`, `.u16x2`: the sum clamped to the (lane) type's range.
#[inline]
pub fn add_sat_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| {
        mask(t, clamp_int(t, value(t, x) + value(t, y)) as u64)
    })
}

/// `sub.sat` for `.s32` (and, by the same rule, the other integer types): the difference clamped
/// to the type's range.
#[inline]
pub fn sub_sat_int(ty: ScalarType, a: u64, b: u64) -> u64 {
    per_lane(ty, a, b, |t, x, y| {
        mask(t, clamp_int(t, value(t, x) - value(t, y)) as u64)
    })
}

/// Clamps to the range of an integer type.
#[inline]
fn clamp_int(ty: ScalarType, v: i128) -> i128 {
    let w = width(ty).min(64);
    if ty.is_signed() {
        v.clamp(-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        v.clamp(0, (1i128 << w) - 1)
    }
}

/// `add.sat.s32`.
#[inline]
pub fn add_sat_s32(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// `sub.sat.s32`.
#[inline]
pub fn sub_sat_s32(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
}

/// `add.cc`/`addc{.cc}`: `a + b + carry_in`, and the carry out (`.u32`/`.s32`/`.u64`/`.s64`).
#[inline]
pub fn add_carry(ty: ScalarType, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let w = width(ty);
    let s = mask(ty, a) as u128 + mask(ty, b) as u128 + carry_in as u128;
    (mask(ty, s as u64), (s >> w) != 0)
}

/// `sub.cc`/`subc{.cc}`: `a − (b + borrow_in)`, and the borrow out (CC.CF holds the borrow).
#[inline]
pub fn sub_borrow(ty: ScalarType, a: u64, b: u64, borrow_in: bool) -> (u64, bool) {
    let (x, y) = (mask(ty, a) as u128, mask(ty, b) as u128 + borrow_in as u128);
    (mask(ty, x.wrapping_sub(y) as u64), x < y)
}

/// `atom.inc.u32` / `red.inc.u32`: the new memory value, `old >= b ? 0 : old + 1`.
#[inline]
pub fn atom_inc(old: u32, b: u32) -> u32 {
    if old >= b {
        0
    } else {
        old + 1
    }
}

/// `atom.dec.u32` / `red.dec.u32`: the new memory value, `(old == 0 || old > b) ? b : old − 1`.
#[inline]
pub fn atom_dec(old: u32, b: u32) -> u32 {
    if old == 0 || old > b {
        b
    } else {
        old - 1
    }
}

/// `shl`: amounts at or beyond the width give 0.
#[inline]
pub fn shl(ty: ScalarType, a: u64, amount: u32) -> u64 {
    if amount >= width(ty) {
        0
    } else {
        mask(ty, a << amount)
    }
}

/// `shr`: arithmetic for signed types, logical otherwise; amounts beyond the width are clamped
/// to it (all sign bits, or 0).
#[inline]
pub fn shr(ty: ScalarType, a: u64, amount: u32) -> u64 {
    let w = width(ty);
    if ty.is_signed() {
        mask(ty, (sext(ty, a) >> amount.min(w - 1).min(63)) as u64)
    } else if amount >= w {
        0
    } else {
        mask(ty, a) >> amount
    }
}

/// `sad`: `c + |a − b|` (wrapping).
#[inline]
pub fn sad(ty: ScalarType, a: u64, b: u64, c: u64) -> u64 {
    let d = (value(ty, a) - value(ty, b)).unsigned_abs() as u64;
    mask(ty, c.wrapping_add(d))
}

/// A byte of `x` as a signed or unsigned number.
#[inline]
fn byte(x: u32, i: u32, signed: bool) -> i32 {
    let b = (x >> (8 * i)) as u8;
    if signed {
        b as i8 as i32
    } else {
        b as i32
    }
}

/// A 16-bit half of `x` as a signed or unsigned number.
#[inline]
fn half(x: u32, i: u32, signed: bool) -> i32 {
    let h = (x >> (16 * i)) as u16;
    if signed {
        h as i16 as i32
    } else {
        h as i32
    }
}

/// `cvt.pack.sat.{u16,s16,u8,s8}.s32.b32 d, a, b, c`: `a` and `b` (signed 32-bit) clamped to
/// the range of a `bits`-bit integer, signed or not, then `d = c:a:b` from the top, `b` in the
/// low `bits` bits and `a` above it; `c`'s low bits fill the word's remaining high bits (none
/// for 16-bit parts, whose form has no `c`).
#[inline]
pub fn cvt_pack_sat(bits: u32, signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let (min, max) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    let part = |x: u32| ((i64::from(x as i32).clamp(min, max) as u64) & ((1 << bits) - 1)) as u32;
    let packed = (part(a) << bits) | part(b);
    if 2 * bits >= 32 {
        packed
    } else {
        packed | (c << (2 * bits))
    }
}

/// `dp4a.atype.btype`: `c` plus the four byte products of `a` and `b` (wrapping, 32 bits).
#[inline]
pub fn dp4a(a: u32, b: u32, c: u32, a_signed: bool, b_signed: bool) -> u32 {
    (0..4).fold(c, |acc, i| {
        acc.wrapping_add((byte(a, i, a_signed) * byte(b, i, b_signed)) as u32)
    })
}

/// `dp2a.lo`/`dp2a.hi`: `c` plus the products of `a`'s two 16-bit halves with bytes 0–1 (`.lo`)
/// or 2–3 (`.hi`, `lo_hi == true`) of `b`.
#[inline]
pub fn dp2a(a: u32, b: u32, c: u32, lo_hi: bool, a_signed: bool, b_signed: bool) -> u32 {
    let base = if lo_hi { 2 } else { 0 };
    (0..2).fold(c, |acc, i| {
        acc.wrapping_add((half(a, i, a_signed) * byte(b, base + i, b_signed)) as u32)
    })
}

#[cfg(test)]
#[path = "integer_tests.rs"]
mod tests;
