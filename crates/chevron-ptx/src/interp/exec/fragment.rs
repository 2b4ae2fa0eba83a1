//! Tensor-core fragment elements, shared by `mma.sync` (`mma.rs`), WMMA (`wmma.rs`) and
//! `wgmma` (`wgmma.rs`): how wide an element of each type is, how registers pack elements (low
//! bits first), and one element of D = A·B + C.
//!
//! Integer forms (`.s8`/`.u8` inputs, `.s32` accumulators) are exact: the sum is formed in 64
//! bits and then wraps to 32, or saturates to the `.s32` range with `.satfinite`. `.f64` forms
//! are a chain of IEEE fused multiply-adds in K order, starting from C, each rounded in the
//! instruction's rounding mode (`.rn` unless WMMA names another). The other floating-point
//! forms (f16, bf16, tf32, e4m3, e5m2 inputs) read `.tf32` elements with their low 13 bits
//! ignored (the tensor cores' reading of an element not converted with `cvt.rna.tf32.f32`), sum
//! the exact products in f64 and round once to the result type: at least as accurate as the
//! tensor cores, not bit-identical.

use crate::interp::numeric::{directed, half};
use crate::ir::{Rounding, ScalarType as T};

/// The `mMnNkK` shape among an instruction's modifiers.
pub(crate) fn shape(words: &[String]) -> Option<(usize, usize, usize)> {
    words.iter().find_map(|w| {
        let rest = w.strip_prefix('m')?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
    })
}

/// Bits of one element.
pub(crate) fn bits(ty: T) -> u32 {
    match ty {
        T::S8 | T::U8 | T::E4m3 | T::E5m2 => 8,
        T::F16 | T::Bf16 => 16,
        T::F64 => 64,
        _ => 32,
    }
}

/// Elements held by one register: four 8-bit, two 16-bit, else one.
pub(crate) fn per_reg(ty: T) -> usize {
    match bits(ty) {
        64 => 1,
        b => (32 / b) as usize,
    }
}

/// Registers a lane holds for `elements` elements of `ty`.
pub(crate) fn regs_for(ty: T, elements: usize) -> usize {
    elements.div_ceil(per_reg(ty))
}

fn mask(ty: T) -> u64 {
    match bits(ty) {
        64 => u64::MAX,
        b => (1u64 << b) - 1,
    }
}

/// Element `e` of a lane's fragment, given its registers' values by index.
pub(crate) fn element(reg: impl Fn(usize) -> u64, ty: T, e: usize) -> u64 {
    let per = per_reg(ty);
    (reg(e / per) >> (bits(ty) as usize * (e % per))) & mask(ty)
}

/// Puts element `e` (its bits in `value`) into a lane's registers.
pub(crate) fn place(regs: &mut [u64], ty: T, e: usize, value: u64) {
    let per = per_reg(ty);
    if let Some(r) = regs.get_mut(e / per) {
        *r |= (value & mask(ty)) << (bits(ty) as usize * (e % per));
    }
}

fn float(ty: T, bits: u64) -> f64 {
    match ty {
        T::F16 => f64::from(half::f16_to_f32(bits as u16)),
        T::Bf16 => f64::from(half::bf16_to_f32(bits as u16)),
        T::Tf32 => f64::from(f32::from_bits((bits as u32) & 0xffff_e000)),
        T::F64 => f64::from_bits(bits),
        T::E4m3 => fp8(bits, 3, 7, false),
        T::E5m2 => fp8(bits, 2, 15, true),
        _ => f64::from(f32::from_bits(bits as u32)),
    }
}

/// The value of an 8-bit float with `mantissa` fraction bits and exponent `bias`: e5m2 has
/// IEEE infinities and NaNs (`ieee`), e4m3 only the NaN S.1111.111.
fn fp8(bits: u64, mantissa: u32, bias: i32, ieee: bool) -> f64 {
    let bits = bits as u32 & 0xff;
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let exponent = ((bits & 0x7f) >> mantissa) as i32;
    let fraction = bits & ((1 << mantissa) - 1);
    let top = (1 << (7 - mantissa)) - 1;
    if exponent == top && (ieee || fraction == (1 << mantissa) - 1) {
        return if ieee && fraction == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let scale = f64::from(1u32 << mantissa);
    let value = if exponent == 0 {
        f64::from(fraction) / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + f64::from(fraction) / scale) * 2f64.powi(exponent - bias)
    };
    sign * value
}

fn int(ty: T, bits: u64) -> i64 {
    match ty {
        T::S8 => i64::from(bits as u8 as i8),
        T::U8 => i64::from(bits as u8),
        _ => i64::from(bits as u32 as i32),
    }
}

/// The element types of one multiply-accumulate and how it rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Product {
    pub a: T,
    pub b: T,
    pub c: T,
    pub d: T,
    /// `.satfinite` on an integer form.
    pub satfinite: bool,
    /// The rounding of an `.f64` form.
    pub rounding: Rounding,
}

impl Product {
    /// D's bits for one element: C's bits `c` plus the dot product of `k` elements of A's row
    /// (`a(kk)`) and B's column (`b(kk)`).
    pub(crate) fn dot(
        &self,
        k: usize,
        a: impl Fn(usize) -> u64,
        b: impl Fn(usize) -> u64,
        c: u64,
    ) -> u64 {
        match self.a {
            T::S8 | T::U8 => {
                let sum = (0..k).fold(int(self.c, c), |acc, kk| {
                    acc + int(self.a, a(kk)) * int(self.b, b(kk))
                });
                let sum = if self.satfinite {
                    sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    sum
                };
                u64::from(sum as i32 as u32)
            }
            T::F64 => (0..k)
                .fold(f64::from_bits(c), |acc, kk| {
                    directed::fma_f64(
                        f64::from_bits(a(kk)),
                        f64::from_bits(b(kk)),
                        acc,
                        self.rounding,
                    )
                })
                .to_bits(),
            _ => {
                let sum = (0..k).fold(float(self.c, c), |acc, kk| {
                    acc + float(self.a, a(kk)) * float(self.b, b(kk))
                });
                if self.d == T::F16 {
                    u64::from(half::f32_to_f16(sum as f32, Rounding::Rn, false))
                } else {
                    u64::from((sum as f32).to_bits())
                }
            }
        }
    }
}
