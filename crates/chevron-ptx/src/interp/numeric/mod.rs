//! The arithmetic of PTX instructions, bit-exact with NVIDIA GPUs: pure functions over raw
//! values that the interpreter calls once per lane.
//!
//! | module | instructions |
//! |---|---|
//! | [`float`] | f32 `add sub mul div fma sqrt rcp` with `.rn/.rz/.rm/.rp`; `min max neg abs copysign`; `.ftz`, `.sat`, canonical NaNs |
//! | [`directed`] | the same for f64 |
//! | [`approx`] | `ex2 lg2 sin cos rsqrt rcp sqrt div tanh` `.approx`, `div.full`, `rcp/rsqrt.approx.f64` |
//! | [`half`] | f16/bf16 conversions and `.f16`/`.bf16`/`.f16x2`/`.bf16x2` arithmetic |
//! | [`convert`] | `cvt` between all scalar types, including tf32, e4m3, e5m2 and packed pairs |
//! | [`integer`] | integer `mul mad mul24 mad24 div rem min max abs neg add sub` (`.sat`, `.cc`), shifts, `sad dp4a dp2a` |
//! | [`bits`] | `bfe bfi prmt brev clz popc bfind fns lop3 shf bmsk szext` |
//! | [`compare`] | `setp`/`set` comparisons, `testp` |
//! | [`round`] | the single correct-rounding routine every narrowing goes through |
//!
//! Conventions: registers hold values as `u64` bit patterns, integers zero-extended from their
//! width, f32 as its 32 bits, f16/bf16 as 16 bits. Functions take and return typed values
//! (`f32`, `f64`, `u16` patterns) or register values (`u64`, low bits read, results masked to
//! the type's width). Everything here is `#[inline]`, allocation-free and panic-free for any
//! input. Where the GPU's behaviour is not documented, the doc comment says what is assumed.
//!
//! Sources: the PTX ISA (CUDA 13) for every documented rule; rustc_apfloat (LLVM's APFloat) as
//! the test oracle for all exact arithmetic and conversions. Assumptions beyond the ISA, each
//! exercised by `scripts/gpu/numeric_probe.py` (run it on a GPU, then the `numeric_check`
//! example compares):
//! - f32 NaN results are `0x7fffffff`, also for `neg`/`abs` (compiled to `FADD`), `cvt` to f32;
//!   f16/bf16 NaN results `0x7fff`; e4m3/e5m2 `0x7f`; tf32 `0x7fffe000`.
//! - f64 invalid operations give `0x7fffffffffffffff`; NaN operands propagate quieted, the
//!   first in operand order; `cvt.f64.*` of a NaN keeps its sign and payload, quieted.
//! - Integer `div`/`rem` by zero give all ones.
//! - `sin`/`cos.approx` reduce the argument as `x × 0x3e22f983` rounded toward zero.
//! - `.sat` and `.relu` turn −0 into +0.
//!
//! Not modelled: the `.oob` modifier, `.rs` stochastic rounding (treated as `.rn`), fp4/fp6
//! formats, tensor-core (`mma`/`wgmma`) accumulation order, and the fusion of `mul`+`add`
//! without rounding modifiers into `fma` that ptxas may perform.

pub mod approx;
pub mod bits;
pub mod compare;
pub mod convert;
pub mod directed;
pub mod float;
pub mod half;
pub mod integer;
#[cfg(test)]
mod oracle;
pub mod round;

pub use approx::*;
pub use bits::*;
pub use compare::*;
pub use convert::*;
pub use directed::*;
pub use float::*;
pub use half::*;
pub use integer::*;

use crate::ir::ScalarType;

/// Extends a value of type `ty` (in its low `ty.size()` bytes) to a destination register of
/// `reg_bytes` bytes, as PTX does when a `ld`/`cvt` destination register is wider than the
/// instruction type: sign-extension for signed integer types, zero-extension otherwise.
#[inline]
pub fn extend_to_register(ty: ScalarType, value: u64, reg_bytes: u32) -> u64 {
    let v = if ty.is_signed() {
        integer::sext(ty, value) as u64
    } else {
        integer::mask(ty, value)
    };
    if reg_bytes >= 8 {
        v
    } else {
        v & ((1u64 << (reg_bytes * 8)) - 1)
    }
}

/// An f32 register value as an `f32`.
#[inline]
pub fn reg_f32(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// An `f32` as a register value.
#[inline]
pub fn f32_reg(x: f32) -> u64 {
    x.to_bits() as u64
}

/// An f64 register value as an `f64`.
#[inline]
pub fn reg_f64(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// An `f64` as a register value.
#[inline]
pub fn f64_reg(x: f64) -> u64 {
    x.to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_extension() {
        assert_eq!(extend_to_register(ScalarType::S8, 0x80, 4), 0xffff_ff80);
        assert_eq!(extend_to_register(ScalarType::U8, 0x180, 4), 0x80);
        assert_eq!(
            extend_to_register(ScalarType::S16, 0x8000, 8),
            0xffff_ffff_ffff_8000
        );
        assert_eq!(reg_f32(f32_reg(1.5)), 1.5);
        assert_eq!(reg_f64(f64_reg(-2.25)), -2.25);
    }
}
