//! Correct rounding of an exact binary value into any of the floating-point formats PTX knows.
//!
//! Every narrowing in this library goes through [`round_to_format`]: a value `mant × 2^exp`
//! (plus an optional "tail", a sign saying the exact value lies a hair above or below it) is
//! rounded once, in any IEEE direction, to f64, f32, f16, bf16, tf32, e4m3 or e5m2. The callers
//! obtain exact values with error-free transformations (TwoSum, fma residuals) or integer
//! arithmetic, so no result is ever rounded twice.

use crate::ir::Rounding;

/// A rounding direction, as IEEE 754 names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// To nearest, ties to even (`.rn`, `.rni`).
    NearestEven,
    /// To nearest, ties away from zero (`.rna`).
    NearestAway,
    /// Toward zero (`.rz`, `.rzi`).
    TowardZero,
    /// Toward −∞ (`.rm`, `.rmi`).
    Down,
    /// Toward +∞ (`.rp`, `.rpi`).
    Up,
}

impl Mode {
    /// The direction a PTX rounding modifier names. The integer variants (`.rni` …) name the same
    /// directions; `.rs` (stochastic rounding, which needs random bits) is treated as `.rn`.
    #[inline]
    pub fn of(rnd: Rounding) -> Mode {
        match rnd {
            Rounding::Rn | Rounding::Rni | Rounding::Rs => Mode::NearestEven,
            Rounding::Rna => Mode::NearestAway,
            Rounding::Rz | Rounding::Rzi => Mode::TowardZero,
            Rounding::Rm | Rounding::Rmi => Mode::Down,
            Rounding::Rp | Rounding::Rpi => Mode::Up,
        }
    }
}

/// A binary floating-point format: sign, `exp_bits` of biased exponent, `frac_bits` of fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Explicit fraction bits (precision minus one).
    pub frac_bits: u32,
    /// Exponent field width.
    pub exp_bits: u32,
    /// Whether the all-ones exponent encodes ∞/NaN (IEEE); `false` for e4m3, whose only
    /// non-finite encoding is the NaN `S.1111.111`.
    pub ieee: bool,
}

/// IEEE binary64.
pub const F64: Format = Format {
    frac_bits: 52,
    exp_bits: 11,
    ieee: true,
};
/// IEEE binary32.
pub const F32: Format = Format {
    frac_bits: 23,
    exp_bits: 8,
    ieee: true,
};
/// IEEE binary16.
pub const F16: Format = Format {
    frac_bits: 10,
    exp_bits: 5,
    ieee: true,
};
/// bfloat16.
pub const BF16: Format = Format {
    frac_bits: 7,
    exp_bits: 8,
    ieee: true,
};
/// TensorFloat-32 as a 19-bit pattern (an f32 whose low 13 bits are dropped).
pub const TF32: Format = Format {
    frac_bits: 10,
    exp_bits: 8,
    ieee: true,
};
/// OCP FP8 E4M3 (no infinities, NaN is `S.1111.111`, largest finite 448).
pub const E4M3: Format = Format {
    frac_bits: 3,
    exp_bits: 4,
    ieee: false,
};
/// OCP FP8 E5M2 (IEEE-like).
pub const E5M2: Format = Format {
    frac_bits: 2,
    exp_bits: 5,
    ieee: true,
};

impl Format {
    /// The sign bit.
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1 << (self.frac_bits + self.exp_bits)
    }

    /// The encoding of +∞ (for e4m3, of the positive NaN).
    #[inline]
    pub const fn inf_bits(self) -> u64 {
        if self.ieee {
            ((1 << self.exp_bits) - 1) << self.frac_bits
        } else {
            (1 << (self.exp_bits + self.frac_bits)) - 1
        }
    }

    /// The encoding of the largest finite value.
    #[inline]
    pub const fn max_finite_bits(self) -> u64 {
        self.inf_bits() - 1
    }

    /// The NaN the GPU produces in this format: all bits but the sign set.
    #[inline]
    pub const fn canonical_nan(self) -> u64 {
        self.sign_bit() - 1
    }

    /// The smallest normal exponent (unbiased).
    #[inline]
    const fn emin(self) -> i32 {
        2 - (1 << (self.exp_bits - 1))
    }

    /// Decodes a finite or infinite pattern exactly into an f64 (every format here but f64 fits);
    /// a NaN decodes to the quiet f64 NaN with the same sign and payload.
    #[inline]
    pub fn to_f64(self, bits: u64) -> f64 {
        let sign = (bits & self.sign_bit()) << (63 - self.frac_bits - self.exp_bits);
        let mag = bits & (self.sign_bit() - 1);
        let field = mag >> self.frac_bits;
        if field != 0 && mag <= self.max_finite_bits() {
            // Normal: rebias the exponent and widen the fraction (pure bit moves).
            let rebias = ((1023 - self.bias()) as u64) << 52;
            return f64::from_bits(sign | ((mag << (52 - self.frac_bits)) + rebias));
        }
        let value = if mag >= self.inf_bits() {
            if self.ieee && mag == self.inf_bits() {
                f64::INFINITY
            } else {
                // A quiet NaN carrying the payload, as a widening IEEE conversion does.
                let payload = (mag & ((1 << self.frac_bits) - 1)) << (52 - self.frac_bits);
                f64::from_bits(0x7ff8_0000_0000_0000 | payload)
            }
        } else {
            // Zero or subnormal.
            mag as f64 * pow2(self.emin() - self.frac_bits as i32)
        };
        f64::from_bits(value.to_bits() | sign)
    }

    /// The exponent bias.
    #[inline]
    const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The largest normal exponent (unbiased).
    #[inline]
    const fn emax(self) -> i32 {
        (self.max_finite_bits() >> self.frac_bits) as i32 - self.bias()
    }
}

/// 2^e as an f64, exact for -1074 ≤ e ≤ 1023.
#[inline]
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Rounds `±mant × 2^exp` to `fmt` in direction `mode` and returns the bit pattern.
///
/// `tail` says where the exact value lies relative to `mant × 2^exp` in magnitude: 0 exactly
/// there, +1 a hair above (less than one unit of `mant`'s last place), −1 a hair below. Overflow
/// gives ∞ (the NaN for e4m3) or, rounding toward zero or with `satfinite`, the largest finite
/// value. Zero `mant` gives a signed zero.
#[inline]
pub fn round_to_format(
    neg: bool,
    mant: u64,
    exp: i32,
    tail: i8,
    fmt: Format,
    mode: Mode,
    satfinite: bool,
) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if mant == 0 {
        return sign;
    }
    // The direction in terms of magnitude.
    let mode = match (mode, neg) {
        (Mode::Down, false) | (Mode::Up, true) => Mode::TowardZero,
        (Mode::Down, true) | (Mode::Up, false) => Mode::Up,
        (m, _) => m,
    };
    let top = exp + 63 - mant.leading_zeros() as i32;
    let e = top.max(fmt.emin());
    let shift = e - fmt.frac_bits as i32 - exp;
    let (q, rem, half, tail) = if shift <= 0 {
        (mant << -shift, 0u128, 1u128, tail)
    } else {
        // Beyond 65 bits only "nonzero and below half an ulp" matters: keep a sticky 1.
        let (m, s, t) = if shift > 65 {
            (1u128, 65, 0)
        } else {
            (mant as u128, shift, tail)
        };
        ((m >> s) as u64, m & ((1u128 << s) - 1), 1u128 << (s - 1), t)
    };
    let bits = (((e - fmt.emin()) as u64) << fmt.frac_bits) + q;
    let bits = match mode {
        Mode::TowardZero => bits - (rem == 0 && tail < 0) as u64,
        Mode::Up => bits + (rem != 0 || tail > 0) as u64,
        Mode::NearestEven => {
            let up = rem > half || (rem == half && (tail > 0 || (tail == 0 && q & 1 == 1)));
            bits + up as u64
        }
        Mode::NearestAway => bits + (rem > half || (rem == half && tail >= 0)) as u64,
        Mode::Down => unreachable!("mapped to magnitude directions above"),
    };
    if bits > fmt.max_finite_bits() {
        let saturate = satfinite || mode == Mode::TowardZero;
        return sign
            | if saturate {
                fmt.max_finite_bits()
            } else {
                fmt.inf_bits()
            };
    }
    sign | bits
}

/// Splits a finite nonzero f64 into (negative, integer mantissa, exponent).
#[inline]
pub fn decompose(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, field - 1075)
    };
    (bits >> 63 != 0, m, e)
}

/// The NaN a conversion from f64 gives in `fmt` (f32, f16, bf16): the source's sign and the top
/// of its payload, quieted (`cvt.f32.f64` of `0xfff8000000000000` is `0xffc00000`, measured on
/// an H200; the payload bits are kept as IEEE recommends, which the measured NaNs cannot tell
/// from dropping them).
#[inline]
pub fn narrow_nan_f64(x: f64, fmt: Format) -> u64 {
    let b = x.to_bits();
    let sign = if b >> 63 == 1 { fmt.sign_bit() } else { 0 };
    let exp = ((1u64 << fmt.exp_bits) - 1) << fmt.frac_bits;
    let quiet = 1u64 << (fmt.frac_bits - 1);
    let payload = (b & ((1 << 52) - 1)) >> (52 - fmt.frac_bits);
    sign | exp | quiet | payload
}

/// Rounds `r + t` (where `|t|` ≤ half an ulp of `r`, as TwoSum and fma residuals give) to `fmt`.
/// NaN gives the format's canonical NaN; ∞ stays ∞ (e4m3: NaN, or its largest value with
/// `satfinite`).
#[inline]
pub fn round_f64(r: f64, t: f64, fmt: Format, mode: Mode, satfinite: bool) -> u64 {
    if mode == Mode::NearestEven && t == 0.0 && fmt.frac_bits < 52 {
        // Fast path: a result in the target's normal range rounds by integer addition on the
        // bit pattern (ties to even via the kept lsb); a carry moves into the exponent.
        let b = r.to_bits();
        let mag = b & !(1 << 63);
        let e = (mag >> 52) as i32 - 1023;
        if e >= fmt.emin() && e <= fmt.emax() {
            let shift = 52 - fmt.frac_bits;
            let m = mag - (((1023 - fmt.bias()) as u64) << 52);
            let rounded = (m + (1 << (shift - 1)) - 1 + ((m >> shift) & 1)) >> shift;
            let sign = (b >> 63) << (fmt.frac_bits + fmt.exp_bits);
            if rounded > fmt.max_finite_bits() {
                return sign
                    | if satfinite {
                        fmt.max_finite_bits()
                    } else {
                        fmt.inf_bits()
                    };
            }
            return sign | rounded;
        }
    }
    if r.is_nan() {
        return fmt.canonical_nan();
    }
    let sign = if r.is_sign_negative() {
        fmt.sign_bit()
    } else {
        0
    };
    if r.is_infinite() {
        return sign
            | if satfinite {
                fmt.max_finite_bits()
            } else {
                fmt.inf_bits()
            };
    }
    let (neg, mant, exp) = decompose(r);
    let tail = if t == 0.0 || t.is_nan() {
        0
    } else if (t > 0.0) != neg {
        1
    } else {
        -1
    };
    round_to_format(neg, mant, exp, tail, fmt, mode, satfinite)
}

/// Rounds `±mant × 2^exp` with a 128-bit mantissa: the bits below the top 64 are folded into a
/// sticky bit, which keeps the rounding exact for every format here (at most 53 bits).
#[inline]
pub fn round_wide(neg: bool, mant: u128, exp: i32, fmt: Format, mode: Mode) -> u64 {
    let excess = 64i32 - mant.leading_zeros() as i32;
    if excess <= 0 {
        return round_to_format(neg, mant as u64, exp, 0, fmt, mode, false);
    }
    let dropped = mant & ((1u128 << excess) - 1);
    let m = (mant >> excess) as u64 | (dropped != 0) as u64;
    round_to_format(neg, m, exp + excess, 0, fmt, mode, false)
}

/// TwoSum: `a + b == s + t` exactly, `s` the rounded sum (finite inputs, no overflow).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let t = (a - (s - bb)) + (b - bb);
    (s, t)
}

#[cfg(test)]
#[path = "round_tests.rs"]
mod tests;
