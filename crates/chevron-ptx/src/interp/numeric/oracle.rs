//! Test support: a deterministic PRNG and reference arithmetic from `rustc_apfloat` (the Rust
//! port of LLVM's APFloat), against which the exact paths are cross-checked.

use super::round::Mode;
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, Round};

/// xorshift64* — small, deterministic, good enough to spread operands.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A finite f32 drawn to hit every binade, subnormals, and near-ties: random sign and
    /// exponent, and a significand that is often short (so sums and products land on ties).
    pub fn f32(&mut self) -> f32 {
        let r = self.next();
        let exp = (r >> 32) % 255;
        let frac = match r % 4 {
            0 => (r >> 8) as u32 & 0x7f_ffff,
            1 => (r >> 8) as u32 & 0x7f_f000,
            2 => (r >> 8) as u32 & 0x70_0001,
            _ => 0,
        };
        let exp = if (r >> 40) & 7 == 0 {
            120 + exp % 16
        } else {
            exp
        };
        f32::from_bits(((r >> 63) as u32) << 31 | (exp as u32) << 23 | frac)
    }

    /// A finite f64 drawn like [`Rng::f32`].
    pub fn f64(&mut self) -> f64 {
        let r = self.next();
        let s = self.next();
        let exp = s % 2047;
        let exp = if (r >> 40) & 3 == 0 {
            1000 + exp % 48
        } else {
            exp
        };
        let frac = match s >> 60 & 3 {
            0 => r & ((1 << 52) - 1),
            1 => r & 0xf_ffff_0000_0000,
            2 => r & 0xf_0000_0000_0001,
            _ => 0,
        };
        f64::from_bits((s >> 63) << 63 | exp << 52 | frac)
    }
}

/// The APFloat rounding direction for a mode.
pub fn round_of(mode: Mode) -> Round {
    match mode {
        Mode::NearestEven => Round::NearestTiesToEven,
        Mode::NearestAway => Round::NearestTiesToAway,
        Mode::TowardZero => Round::TowardZero,
        Mode::Down => Round::TowardNegative,
        Mode::Up => Round::TowardPositive,
    }
}

/// Reference binary operation on f32 (`op`: `+ - * /`).
pub fn f32_op(op: char, a: f32, b: f32, mode: Mode) -> f32 {
    let (x, y) = (
        Single::from_bits(a.to_bits() as u128),
        Single::from_bits(b.to_bits() as u128),
    );
    let r = round_of(mode);
    let v = match op {
        '+' => x.add_r(y, r),
        '-' => x.sub_r(y, r),
        '*' => x.mul_r(y, r),
        _ => x.div_r(y, r),
    };
    f32::from_bits(v.value.to_bits() as u32)
}

/// Reference fused multiply-add on f32.
pub fn f32_fma(a: f32, b: f32, c: f32, mode: Mode) -> f32 {
    let s = |x: f32| Single::from_bits(x.to_bits() as u128);
    f32::from_bits(s(a).mul_add_r(s(b), s(c), round_of(mode)).value.to_bits() as u32)
}

/// Reference binary operation on f64.
pub fn f64_op(op: char, a: f64, b: f64, mode: Mode) -> f64 {
    let (x, y) = (
        Double::from_bits(a.to_bits() as u128),
        Double::from_bits(b.to_bits() as u128),
    );
    let r = round_of(mode);
    let v = match op {
        '+' => x.add_r(y, r),
        '-' => x.sub_r(y, r),
        '*' => x.mul_r(y, r),
        _ => x.div_r(y, r),
    };
    f64::from_bits(v.value.to_bits() as u64)
}

/// Reference fused multiply-add on f64.
pub fn f64_fma(a: f64, b: f64, c: f64, mode: Mode) -> f64 {
    let d = |x: f64| Double::from_bits(x.to_bits() as u128);
    f64::from_bits(d(a).mul_add_r(d(b), d(c), round_of(mode)).value.to_bits() as u64)
}

/// The directed modes and nearest, with the PTX modifier naming each.
pub const MODES: [(Mode, crate::ir::Rounding); 4] = [
    (Mode::NearestEven, crate::ir::Rounding::Rn),
    (Mode::TowardZero, crate::ir::Rounding::Rz),
    (Mode::Down, crate::ir::Rounding::Rm),
    (Mode::Up, crate::ir::Rounding::Rp),
];

/// Bitwise equality, treating any two NaNs as equal.
pub fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Bitwise equality, treating any two NaNs as equal.
pub fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
