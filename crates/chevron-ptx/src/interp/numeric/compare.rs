//! Comparisons of `setp`/`set`/`slct` and the classification of `testp`.

use super::integer::value;
use super::round::{BF16, F16};
use crate::ir::{Compare, ScalarType};

/// Integer comparison. `.lo`/`.ls`/`.hi`/`.hs` are unsigned; `.lt`/`.le`/`.gt`/`.ge` follow the
/// type's signedness (unsigned for `.uN`/`.bN`). The unordered float forms (`.equ` …) behave as
/// their ordered forms; `.num` is true and `.nan` false (integers are never NaN).
#[inline]
pub fn compare_int(cmp: Compare, ty: ScalarType, a: u64, b: u64) -> bool {
    let unsigned = matches!(cmp, Compare::Lo | Compare::Ls | Compare::Hi | Compare::Hs);
    let (x, y) = if unsigned {
        let t = match ty.size() {
            1 => ScalarType::U8,
            2 => ScalarType::U16,
            4 => ScalarType::U32,
            _ => ScalarType::U64,
        };
        (value(t, a), value(t, b))
    } else {
        (value(ty, a), value(ty, b))
    };
    match cmp {
        Compare::Eq | Compare::Equ => x == y,
        Compare::Ne | Compare::Neu => x != y,
        Compare::Lt | Compare::Lo | Compare::Ltu => x < y,
        Compare::Le | Compare::Ls | Compare::Leu => x <= y,
        Compare::Gt | Compare::Hi | Compare::Gtu => x > y,
        Compare::Ge | Compare::Hs | Compare::Geu => x >= y,
        Compare::Num => true,
        Compare::Nan => false,
    }
}

/// Float comparison on values widened exactly to f64. Ordered forms are false when either
/// operand is NaN; the `u` forms are true then; `.num`/`.nan` test for NaN. `.lo`… are treated
/// as `.lt`… (PTX does not allow them on floats).
#[inline]
fn compare_float(cmp: Compare, a: f64, b: f64) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match cmp {
        Compare::Eq => a == b,
        Compare::Ne => !nan && a != b,
        Compare::Lt | Compare::Lo => a < b,
        Compare::Le | Compare::Ls => a <= b,
        Compare::Gt | Compare::Hi => a > b,
        Compare::Ge | Compare::Hs => a >= b,
        Compare::Equ => nan || a == b,
        Compare::Neu => a != b,
        Compare::Ltu => nan || a < b,
        Compare::Leu => nan || a <= b,
        Compare::Gtu => nan || a > b,
        Compare::Geu => nan || a >= b,
        Compare::Num => !nan,
        Compare::Nan => nan,
    }
}

/// `setp.cmp.f32` (`.ftz` is the caller's: flush both operands first).
#[inline]
pub fn compare_f32(cmp: Compare, a: f32, b: f32) -> bool {
    compare_float(cmp, a as f64, b as f64)
}

/// `setp.cmp.f64`.
#[inline]
pub fn compare_f64(cmp: Compare, a: f64, b: f64) -> bool {
    compare_float(cmp, a, b)
}

/// `setp.cmp.f16` on bit patterns.
#[inline]
pub fn compare_f16(cmp: Compare, a: u16, b: u16) -> bool {
    compare_float(cmp, F16.to_f64(a as u64), F16.to_f64(b as u64))
}

/// `setp.cmp.bf16` on bit patterns.
#[inline]
pub fn compare_bf16(cmp: Compare, a: u16, b: u16) -> bool {
    compare_float(cmp, BF16.to_f64(a as u64), BF16.to_f64(b as u64))
}

/// `testp.op.type` on a register value (`.f32` reads the low 32 bits, `.f64` all 64; `.f16`
/// and `.bf16` are accepted too). `op` is the word without its dot: `finite`, `infinite`,
/// `number`, `notanumber`, `normal`, `subnormal`; an unknown word or type gives `false`.
/// As the PTX ISA specifies, ±0 count as normal numbers.
#[inline]
pub fn testp(op: &str, ty: ScalarType, bits: u64) -> bool {
    let x = match ty {
        ScalarType::F32 => f32::from_bits(bits as u32) as f64,
        ScalarType::F64 => f64::from_bits(bits),
        ScalarType::F16 => F16.to_f64(bits & 0xffff),
        ScalarType::Bf16 => BF16.to_f64(bits & 0xffff),
        _ => return false,
    };
    // Classify in the operand's own format: an f32/f16 subnormal is a normal f64.
    let min_normal = match ty {
        ScalarType::F32 => f32::MIN_POSITIVE as f64,
        ScalarType::F16 => super::round::pow2(-14),
        ScalarType::Bf16 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    };
    match op {
        "finite" => x.is_finite(),
        "infinite" => x.is_infinite(),
        "number" => !x.is_nan(),
        "notanumber" => x.is_nan(),
        "normal" => x.is_finite() && (x == 0.0 || x.abs() >= min_normal),
        "subnormal" => x != 0.0 && x.abs() < min_normal,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_signedness() {
        let m1 = u32::MAX as u64; // -1 as s32
        assert!(compare_int(Compare::Lt, ScalarType::S32, m1, 0));
        assert!(!compare_int(Compare::Lt, ScalarType::U32, m1, 0));
        assert!(compare_int(Compare::Hi, ScalarType::S32, m1, 0));
        assert!(compare_int(Compare::Ls, ScalarType::S64, 3, 3));
        assert!(compare_int(Compare::Ge, ScalarType::S16, 0x7fff, 0x8000));
        assert!(!compare_int(Compare::Ne, ScalarType::B32, 1, 0x1_0000_0001));
    }

    #[test]
    fn float_orderedness() {
        let nan = f32::NAN;
        for c in [
            Compare::Eq,
            Compare::Ne,
            Compare::Lt,
            Compare::Le,
            Compare::Gt,
            Compare::Ge,
        ] {
            assert!(!compare_f32(c, nan, 1.0), "{c:?}");
        }
        for c in [
            Compare::Equ,
            Compare::Neu,
            Compare::Ltu,
            Compare::Leu,
            Compare::Gtu,
        ] {
            assert!(compare_f32(c, 1.0, nan), "{c:?}");
        }
        assert!(compare_f32(Compare::Eq, 0.0, -0.0));
        assert!(!compare_f32(Compare::Lt, -0.0, 0.0));
        assert!(compare_f32(Compare::Nan, nan, 0.0) && !compare_f32(Compare::Num, nan, 0.0));
        assert!(!compare_f32(Compare::Neu, 2.0, 2.0));
        assert!(compare_f16(Compare::Lt, 0x3c00, 0x4000)); // 1 < 2
        assert!(compare_bf16(Compare::Gt, 0x3f80, 0xbf80)); // 1 > -1
        assert!(!compare_f16(Compare::Eq, 0x7e00, 0x7e00)); // NaN
    }

    #[test]
    fn testp_classes() {
        let sub = 1u64; // smallest f32 subnormal
        assert!(testp("subnormal", ScalarType::F32, sub));
        assert!(!testp("normal", ScalarType::F32, sub));
        assert!(testp("normal", ScalarType::F32, 1.0f32.to_bits() as u64));
        assert!(testp("normal", ScalarType::F32, 0) && !testp("subnormal", ScalarType::F32, 0));
        assert!(testp("normal", ScalarType::F64, 1 << 63));
        assert!(testp(
            "infinite",
            ScalarType::F64,
            f64::NEG_INFINITY.to_bits()
        ));
        assert!(testp("notanumber", ScalarType::F64, f64::NAN.to_bits()));
        assert!(testp("finite", ScalarType::F64, f64::MAX.to_bits()));
        assert!(testp(
            "number",
            ScalarType::F32,
            f32::INFINITY.to_bits() as u64
        ));
        assert!(testp("subnormal", ScalarType::F64, 1));
        assert!(!testp("bogus", ScalarType::F32, 0));
    }
}
