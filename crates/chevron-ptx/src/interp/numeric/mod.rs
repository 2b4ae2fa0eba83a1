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
//! the test oracle for all exact arithmetic and conversions. Behaviour beyond the ISA was
//! measured with `scripts/gpu/numeric_probe.py` on an H200 (driver 580.159.04, CUDA 13.0); a
//! sample of that run is `tests/data/numeric_probe_h200.txt`, which the `numeric_gpu`
//! integration test checks row by row through [`probe`]:
//! - f32 NaN results are `0x7fffffff`, also for `neg`/`abs` (compiled to `FADD`), `cvt` to f32
//!   from f32/f16; f16/bf16 NaN results `0x7fff`; e4m3/e5m2 `0x7f`.
//! - f64 invalid operations give `0xfff8000000000000`; NaN operands propagate quieted (two NaN
//!   operands: `b` for `add sub mul fma min max`, `a` for `div`); `sub` does not negate a NaN;
//!   `neg`/`abs.f64` quiet a NaN and keep its sign; `cvt.f64.*` of a NaN keeps sign and
//!   payload, quieted.
//! - `cvt` from f64 to f32/f16/bf16 of a NaN keeps the sign, quieted (`0xffc00000`, `0xfe00`,
//!   `0xffc0`); bf16 → f32 shifts the bits unchanged; `cvt.rna.tf32.f32` rounds NaN bits like a
//!   number's.
//! - Integer `div`/`rem` by zero give all ones. 64-bit `bfe` reads `pos`/`len` as full 32-bit
//!   values, 32-bit `bfe` their low byte.
//! - `sin`/`cos.approx` reduce the argument as `x × 0x3e22f983` rounded toward zero;
//!   `div.approx.f32` scales a subnormal divisor instead of flushing it.
//! - `.sat` and `.relu` turn −0 into +0; `mul.ftz` flushes results that are tiny before
//!   rounding ([`mul_ftz_f32`]). `fma.ftz` may do the same (it runs on the same unit) but is not
//!   measured near 2^−126; it flushes after rounding here. (`add.ftz` cannot differ: a sum of
//!   normal f32 values below 2^−126 is exact.)
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
pub mod probe;
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

    /// Every type the IR knows, including ones an instruction would never carry.
    const ALL_TYPES: [ScalarType; 27] = {
        use ScalarType::*;
        [
            Pred, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16,
            Bf16x2, Tf32, F32, F64, U16x2, S16x2, E4m3, E5m2, E4m3x2, E5m2x2,
        ]
    };

    /// Whether `v` fits in the low `bits` bits.
    fn fits(v: u64, bits: u32) -> bool {
        bits >= 64 || v >> bits == 0
    }

    #[test]
    fn any_input_gives_a_result_of_the_type_width() {
        use crate::ir::{Compare, Rounding};
        let mut rng = oracle::Rng(99);
        let rounding = [
            None,
            Some(Rounding::Rn),
            Some(Rounding::Rzi),
            Some(Rounding::Rna),
        ];
        for i in 0..4000usize {
            let (a, b, c) = (rng.next(), rng.next(), rng.next());
            let small = (b >> 58) as u32 * 3; // shift amounts and positions up to 189
            for ty in ALL_TYPES {
                let w = integer::width(ty);
                for v in [
                    mul_hi(ty, a, b),
                    mad_hi(ty, a, b, c, false),
                    div_int(ty, a, b),
                    rem_int(ty, a, b & (i as u64 % 2)),
                    sad(ty, a, b, c),
                    shl(ty, a, small),
                    shr(ty, a, small),
                    abs_int(ty, a),
                    neg_int(ty, a),
                    min_int(ty, a, b),
                    add_sat_int(ty, a, b),
                    add_carry(ty, a, b, true).0,
                    bfe(ty, a, small, small),
                    bfi(ty, a, b, small, small),
                    brev(ty, a),
                ] {
                    assert!(fits(v, w), "{ty:?} {v:#x}");
                }
                assert!(fits(mul_wide(ty, a, b), 2 * w));
                assert!(clz(ty, a) <= w && popc(ty, a) <= w);
                assert!(bfind(ty, a, true) < w || bfind(ty, a, true) == u32::MAX);
                let _ = (testp("normal", ty, a), compare_int(Compare::Lt, ty, a, b));
                assert!(fits(extend_to_register(ty, a, 2), 16));
                for src in ALL_TYPES {
                    let o = CvtOptions {
                        rnd: rounding[i % 4],
                        ftz: i % 3 == 0,
                        ..CvtOptions::default()
                    };
                    let v = cvt_with(ty, src, a, &o);
                    assert!(
                        fits(v, ty.size().min(8) * 8),
                        "{ty:?} {src:?} {a:#x} {v:#x}"
                    );
                }
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                assert!(fits(
                    cvt_pack_f32(ty, x, y, &CvtOptions::default()) as u64,
                    32
                ));
            }
            assert!(
                fns(a as u32, small, b as i32) < 32 || fns(a as u32, small, b as i32) == u32::MAX
            );
            let m = bmsk(small, small, false);
            assert_eq!(
                m.count_ones(),
                if m == 0 {
                    0
                } else {
                    32 - m.leading_zeros() - m.trailing_zeros()
                }
            );
            let _ = (
                szext(a as u32, small, true, false),
                shf(a as u32, b as u32, small, true, false),
            );
            let _ = prmt(a as u32, b as u32, c as u32, Some("ecl"));
        }
    }

    #[test]
    fn any_float_input_gives_canonical_nans() {
        use crate::ir::Rounding::*;
        let canonical32 = |v: f32| !v.is_nan() || v.to_bits() == 0x7fff_ffff;
        let canonical16 = |v: u16, bf: bool| {
            let nan = if bf {
                v & 0x7fff > 0x7f80
            } else {
                v & 0x7fff > 0x7c00
            };
            !nan || v == 0x7fff
        };
        // An f64 NaN result is a quieted operand or the canonical NaN: its quiet bit is set.
        let quiet64 = |v: f64| !v.is_nan() || v.to_bits() & 0x0008_0000_0000_0000 != 0;
        let mut rng = oracle::Rng(7);
        for _ in 0..20_000 {
            let (a, b, c) = (rng.next(), rng.next(), rng.next());
            let (x, y, z) = (reg_f32(a), reg_f32(b), reg_f32(c));
            let (p, q, r) = (reg_f64(a), reg_f64(b), reg_f64(c));
            let (h, g, k) = (a as u16, b as u16, c as u16);
            for rnd in [Rn, Rz, Rm, Rp, Rna, Rs, Rni] {
                let f32s = [
                    add_f32(x, y, rnd),
                    div_f32(x, y, rnd),
                    fma_f32(x, y, z, rnd),
                ];
                assert!(
                    f32s.into_iter().all(canonical32),
                    "{x:e} {y:e} {z:e} {rnd:?} {f32s:?}"
                );
                assert!(
                    canonical32(sqrt_f32(x, rnd)),
                    "{:#x} {rnd:?} {:#x}",
                    x.to_bits(),
                    sqrt_f32(x, rnd).to_bits()
                );
                let f64s = [
                    add_f64(p, q, rnd),
                    fma_f64(p, q, r, rnd),
                    div_f64(p, q, rnd),
                ];
                assert!(f64s.into_iter().all(quiet64));
                assert!(quiet64(sqrt_f64(p, rnd)) && quiet64(mul_f64(p, q, rnd)));
                assert!(canonical16(fma_f16(h, g, k, rnd, true, false), false));
                assert!(canonical16(fma_bf16(h, g, k, rnd, false, false), true));
                // From f64 a NaN keeps its sign and payload top, quieted (H200).
                let h = f64_to_f16(p, rnd, true);
                assert!(!p.is_nan() || h & 0x7e00 == 0x7e00, "{p:e} {h:#x}");
                assert!(canonical16(f32_to_bf16(x, rnd, false), true));
            }
            let approx = [ex2_approx_f32(x), lg2_approx_f32(x), sin_approx_f32(x)];
            assert!(approx.into_iter().all(canonical32));
            let approx = [cos_approx_f32(x), div_approx_f32(x, y), tanh_approx_f32(x)];
            assert!(approx.into_iter().all(canonical32));
            assert_eq!(rcp_approx_ftz_f64(p).to_bits() & 0xffff_ffff, 0);
            assert_eq!(rsqrt_approx_ftz_f64(p).to_bits() & 0xffff_ffff, 0);
            assert!(quiet64(rsqrt_approx_f64(p)));
            assert!(canonical16(ex2_approx_f16(h), false));
            assert!(canonical16(
                minmax_xorsign_abs_half(h, g, true, true, false),
                true
            ));
        }
    }

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
