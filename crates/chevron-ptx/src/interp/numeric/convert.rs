//! `cvt` between PTX scalar types: integer ↔ integer, float ↔ integer and float ↔ float
//! (f64, f32, tf32, f16, bf16, e4m3, e5m2, and the packed `.f16x2`/`.bf16x2`/`.e4m3x2`/`.e5m2x2`).
//!
//! Values are register bit patterns. Sources are read from the low `size` bytes of `bits`
//! (sign-extended for signed types). Results are masked to the destination's width; when the
//! destination register is wider than the type, the interpreter extends it as for `ld`
//! ([`super::extend_to_register`]).
//!
//! Every float source decodes exactly into an f64, so each conversion rounds exactly once.
//! Float → integer rounds to integral in the requested mode and clamps to the destination range
//! (PTX clamps by default, `.sat` or not); NaN gives 0, or `1 << (width − 1)` from an f64 source
//! or into a 64-bit destination. NaN results of float conversions are the destination's
//! canonical NaN (`0x7fff`, `0x7fffffff`, …; e4m3/e5m2: `0x7f`), except (as measured on an
//! H200): into f64, which keeps the source NaN's sign and payload (quieted); from f64 into
//! f32/f16/bf16, which keeps the sign and the top of the payload, quieted
//! ([`narrow_nan_f64`]); bf16 → f32, which shifts the bits up unchanged; and `cvt.rna.tf32.f32`,
//! which rounds a NaN's bits like a number's (`0x7f800001` gives `0x7f800000`). `.sat` turns
//! −0 into +0.

use super::float::flush_f32;
use super::integer::{mask, value};
pub use super::round::narrow_nan_f64;
use super::round::{
    round_f64, round_to_format, Format, Mode, BF16, E4M3, E5M2, F16, F32, F64, TF32,
};
use crate::ir::{Rounding, ScalarType};

/// The modifiers of a `cvt` beyond its types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CvtOptions {
    /// The rounding modifier, if written (`None`: `.rn` for float results, `.rzi` for integer
    /// results, which PTX requires to be written anyway).
    pub rnd: Option<Rounding>,
    /// `.ftz`: flush f32 subnormal sources and results to signed zero.
    pub ftz: bool,
    /// `.sat`: clamp integers to the destination range, floats to [0, 1] (NaN → 0).
    pub sat: bool,
    /// `.satfinite`: overflow and ±∞ give the largest finite value (always on for e4m3/e5m2).
    pub satfinite: bool,
    /// `.relu`: negative results (and −0) become +0; NaN stays the canonical NaN.
    pub relu: bool,
}

/// A float format with how its value sits in a register.
#[derive(Clone, Copy)]
enum Float {
    /// A plain format occupying the low bits.
    Plain(Format),
    /// tf32: an f32 container whose low 13 bits are zero.
    Tf32,
}

/// The float format of a scalar type, if it is a float.
#[inline]
fn float_format(ty: ScalarType) -> Option<Float> {
    Some(match ty {
        ScalarType::F64 => Float::Plain(F64),
        ScalarType::F32 => Float::Plain(F32),
        ScalarType::F16 => Float::Plain(F16),
        ScalarType::Bf16 => Float::Plain(BF16),
        ScalarType::E4m3 => Float::Plain(E4M3),
        ScalarType::E5m2 => Float::Plain(E5M2),
        ScalarType::Tf32 => Float::Tf32,
        _ => return None,
    })
}

/// The element format and element width of a packed type.
#[inline]
fn packed_format(ty: ScalarType) -> Option<(Format, u32)> {
    Some(match ty {
        ScalarType::F16x2 => (F16, 16),
        ScalarType::Bf16x2 => (BF16, 16),
        ScalarType::E4m3x2 => (E4M3, 8),
        ScalarType::E5m2x2 => (E5M2, 8),
        _ => return None,
    })
}

/// Rounds to an integral value in `mode`.
#[inline]
pub fn round_integral(v: f64, mode: Mode) -> f64 {
    match mode {
        Mode::NearestEven => v.round_ties_even(),
        Mode::NearestAway => v.round(),
        Mode::TowardZero => v.trunc(),
        Mode::Down => v.floor(),
        Mode::Up => v.ceil(),
    }
}

/// Whether a rounding modifier is one of the integer forms (`.rni` …).
#[inline]
fn is_integer_rounding(rnd: Option<Rounding>) -> bool {
    matches!(
        rnd,
        Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
    )
}

/// Decodes a float register value exactly (`.ftz` flushes f32 subnormals).
#[inline]
fn decode(fmt: Float, bits: u64, ftz: bool) -> f64 {
    match fmt {
        Float::Plain(f) if f == F64 => f64::from_bits(bits),
        Float::Plain(f) if f == F32 => {
            let x = f32::from_bits(bits as u32);
            widen_f32(if ftz { flush_f32(x) } else { x })
        }
        Float::Plain(f) => f.to_f64(bits & ((f.sign_bit() << 1) - 1)),
        Float::Tf32 => f32::from_bits(bits as u32) as f64,
    }
}

/// An f32 as an f64, exactly; a NaN keeps its sign and payload (shifted up, as IEEE widening
/// does), independently of the host's conversion.
#[inline]
fn widen_f32(x: f32) -> f64 {
    if x.is_nan() {
        F32.to_f64(x.to_bits() as u64)
    } else {
        x as f64
    }
}

/// A NaN with its quiet bit set (f64 results keep payloads); other values unchanged.
#[inline]
fn quiet_f64(v: f64) -> f64 {
    if v.is_nan() {
        f64::from_bits(v.to_bits() | 0x0008_0000_0000_0000)
    } else {
        v
    }
}

/// Encodes the value `v` (exact, or an f64 to be rounded) in `fmt`, applying the options.
#[inline]
fn encode(fmt: Float, v: f64, mode: Mode, o: &CvtOptions) -> u64 {
    let negative = v < 0.0 || (v == 0.0 && v.is_sign_negative());
    let v = if o.sat && !v.is_nan() {
        // `+ 0.0` turns −0 into +0.
        v.clamp(0.0, 1.0) + 0.0
    } else if o.sat || (o.relu && negative) {
        0.0
    } else {
        v
    };
    match fmt {
        Float::Plain(f) if f == F64 => quiet_f64(v).to_bits(),
        Float::Plain(f) => {
            let fp8 = f == E4M3 || f == E5M2;
            let r = round_f64(v, 0.0, f, mode, o.satfinite || fp8);
            if f == F32 && o.ftz {
                flush_f32(f32::from_bits(r as u32)).to_bits() as u64
            } else {
                r
            }
        }
        Float::Tf32 => {
            let r = round_f64(v, 0.0, TF32, mode, o.satfinite);
            // The canonical NaN in the f32 container keeps the low 13 bits zero.
            r << 13
        }
    }
}

/// `cvt.rna.tf32.f32` of a NaN: the GPU rounds the bit pattern ties-away by integer addition,
/// NaN or not, so a NaN whose payload lies in the low 13 bits becomes ∞ (`0x7f800001` gives
/// `0x7f800000`, measured on an H200). Assumed: a payload that would carry out of the exponent
/// saturates at `0x7fffe000`, keeping the sign.
#[inline]
fn tf32_rna_nan(bits: u32) -> u64 {
    let mag = ((bits & 0x7fff_ffff) + 0x1000).min(0x7fff_ffff) & 0xffff_e000;
    ((bits & 0x8000_0000) | mag) as u64
}

/// `cvt{.rnd}{.ftz}{.sat}.dst.src`: converts the register value `bits`.
#[inline]
pub fn cvt(
    dst: ScalarType,
    src: ScalarType,
    bits: u64,
    rnd: Option<Rounding>,
    ftz: bool,
    sat: bool,
) -> u64 {
    cvt_with(
        dst,
        src,
        bits,
        &CvtOptions {
            rnd,
            ftz,
            sat,
            ..CvtOptions::default()
        },
    )
}

/// `cvt` with every modifier (`.satfinite`, `.relu`).
pub fn cvt_with(dst: ScalarType, src: ScalarType, bits: u64, o: &CvtOptions) -> u64 {
    if !o.ftz && !o.sat && !o.satfinite && !o.relu {
        if let Some(v) = common(dst, src, bits, o.rnd) {
            return v;
        }
    }
    if let Some((df, dw)) = packed_format(dst) {
        return convert_packed(df, dw, src, bits, o);
    }
    match (float_format(dst), float_format(src)) {
        (Some(df), Some(sf)) => {
            let v = decode(sf, bits, o.ftz);
            if matches!(df, Float::Tf32) && v.is_nan() && o.rnd == Some(Rounding::Rna) {
                return tf32_rna_nan(bits as u32);
            }
            if let (Float::Plain(s), Float::Plain(f)) = (sf, df) {
                if s == F64 && !o.sat && v.is_nan() && (f == F32 || f == F16 || f == BF16) {
                    return narrow_nan_f64(v, f);
                }
            }
            if is_integer_rounding(o.rnd) {
                let mode = Mode::of(o.rnd.unwrap_or(Rounding::Rni));
                encode(df, round_integral(v, mode), Mode::NearestEven, o)
            } else {
                encode(df, v, Mode::of(o.rnd.unwrap_or(Rounding::Rn)), o)
            }
        }
        (None, Some(sf)) => float_to_int(dst, src, decode(sf, bits, o.ftz), o.rnd),
        (Some(df), None) => int_to_float(df, value(src, bits), o),
        (None, None) => {
            let v = value(src, bits);
            let v = if o.sat { clamp_to(dst, v) } else { v };
            mask(dst, v as u64)
        }
    }
}

/// The most frequent conversions without modifiers, done directly with host conversions that
/// have the same semantics (Rust's float → int casts saturate and map NaN to 0, which is PTX's
/// rule for f32 sources and 32-bit destinations). `None` when the general path must decide.
#[inline]
fn common(dst: ScalarType, src: ScalarType, bits: u64, rnd: Option<Rounding>) -> Option<u64> {
    use ScalarType::{Bf16, F16, F32, F64, S32, U32};
    let nearest = matches!(rnd, None | Some(Rounding::Rn));
    let f = || f32::from_bits(bits as u32);
    Some(match (dst, src) {
        (F32, S32) if nearest => (bits as i32 as f32).to_bits() as u64,
        (F32, U32) if nearest => (bits as u32 as f32).to_bits() as u64,
        (F64, S32) => (bits as i32 as f64).to_bits(),
        (F64, U32) => (bits as u32 as f64).to_bits(),
        (F32, F16) if !is_integer_rounding(rnd) => {
            super::half::f16_to_f32(bits as u16).to_bits() as u64
        }
        (F16, F32) if nearest => {
            round_f64(f() as f64, 0.0, super::round::F16, Mode::NearestEven, false)
        }
        (Bf16, F32) if nearest => round_f64(f() as f64, 0.0, BF16, Mode::NearestEven, false),
        (F32, Bf16) if !is_integer_rounding(rnd) => {
            super::half::bf16_to_f32(bits as u16).to_bits() as u64
        }
        (F32, F64) if nearest => {
            let x = f64::from_bits(bits);
            if x.is_nan() {
                narrow_nan_f64(x, super::round::F32)
            } else {
                (x as f32).to_bits() as u64
            }
        }
        (F64, F32) if !is_integer_rounding(rnd) => quiet_f64(widen_f32(f())).to_bits(),
        (S32 | U32, F32) => {
            let r = match rnd {
                Some(Rounding::Rni | Rounding::Rn) => round_ties_even_f32(f()),
                Some(Rounding::Rmi | Rounding::Rm) => f().floor(),
                Some(Rounding::Rpi | Rounding::Rp) => f().ceil(),
                _ => f().trunc(),
            };
            if dst == S32 {
                r as i32 as u32 as u64
            } else {
                r as u32 as u64
            }
        }
        _ => return None,
    })
}

/// Rounds to an integral value, ties to even, without a library call: below 2^23 in magnitude,
/// adding and subtracting 2^23 rounds away the fraction in the current (nearest-even) mode.
#[inline]
fn round_ties_even_f32(x: f32) -> f32 {
    const TWO_23: f32 = 8_388_608.0;
    if x.abs() < TWO_23 {
        let t = TWO_23.copysign(x);
        ((x + t) - t).copysign(x)
    } else {
        x
    }
}

/// Clamps an integer to the range of `ty`.
#[inline]
fn clamp_to(ty: ScalarType, v: i128) -> i128 {
    let w = ty.size().min(8) * 8;
    let (lo, hi) = if ty.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    v.clamp(lo, hi)
}

/// Float → integer: round to integral, clamp to the destination range. NaN gives 0, except
/// from an f64 source or into a 64-bit destination, where it gives `1 << (width − 1)` (the PTX
/// ISA's rule).
#[inline]
fn float_to_int(dst: ScalarType, src: ScalarType, v: f64, rnd: Option<Rounding>) -> u64 {
    if v.is_nan() {
        return if src == ScalarType::F64 || dst.size() == 8 {
            1 << (dst.size().min(8) * 8 - 1)
        } else {
            0
        };
    }
    let r = round_integral(v, Mode::of(rnd.unwrap_or(Rounding::Rzi)));
    // |r| ≥ 2^100 clamps anyway; below that the value is exact in i128.
    let i = r.clamp(-1e30, 1e30) as i128;
    mask(dst, clamp_to(dst, i) as u64)
}

/// Integer → float, rounded once in the requested mode.
#[inline]
fn int_to_float(dst: Float, v: i128, o: &CvtOptions) -> u64 {
    let mode = Mode::of(o.rnd.unwrap_or(Rounding::Rn));
    if o.sat || o.relu {
        return encode(dst, (v.clamp(-2, 2)) as f64, mode, o);
    }
    let (fmt, shift) = match dst {
        Float::Plain(f) => (f, 0),
        Float::Tf32 => (TF32, 13),
    };
    let fp8 = fmt == E4M3 || fmt == E5M2;
    let bits = round_to_format(
        v < 0,
        v.unsigned_abs() as u64,
        0,
        0,
        fmt,
        mode,
        o.satfinite || fp8,
    );
    bits << shift
}

/// Conversions whose destination is a packed pair with one source register: fp8x2 → f16x2 /
/// bf16x2 (widening, exact) and f16x2 → fp8x2 (narrowing, always `.satfinite`). Element 0 is
/// the low part.
fn convert_packed(df: Format, dw: u32, src: ScalarType, bits: u64, o: &CvtOptions) -> u64 {
    let Some((sf, sw)) = packed_format(src) else {
        return 0;
    };
    let mode = Mode::of(o.rnd.unwrap_or(Rounding::Rn));
    let sat = o.satfinite || dw == 8;
    let mut out = 0u64;
    for i in 0..2 {
        let e = (bits >> (i * sw)) & ((1 << sw) - 1);
        let mut v = sf.to_f64(e);
        if o.relu && (v < 0.0 || (v == 0.0 && v.is_sign_negative())) {
            v = 0.0;
        }
        out |= round_f64(v, 0.0, df, mode, sat) << (i * dw);
    }
    out
}

/// `cvt.rnd{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b`: converts two f32
/// values and packs them, `a` into the upper element and `b` into the lower. Other
/// destinations give 0.
pub fn cvt_pack_f32(dst: ScalarType, a: f32, b: f32, o: &CvtOptions) -> u32 {
    let Some((fmt, w)) = packed_format(dst) else {
        return 0;
    };
    let one = |x: f32| {
        encode(
            Float::Plain(fmt),
            x as f64,
            Mode::of(o.rnd.unwrap_or(Rounding::Rn)),
            o,
        )
    };
    ((one(a) << w) | one(b)) as u32
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
