//! Bit-manipulation instructions: `bfe`, `bfi`, `prmt`, `brev`, `clz`, `popc`, `bfind`, `fns`,
//! `lop3`, `shf`, `bmsk`, `szext`, following the PTX ISA's pseudocode.

use super::integer::{mask, width};
use crate::ir::ScalarType;

/// `bfe`: extracts `len` bits of `a` from bit `pos`. Signed types replicate the field's top bit
/// (the type's sign bit if the field runs past it); `len == 0` gives 0.
///
/// The PTX ISA restricts `pos` and `len` to 0..255. Beyond that the GPU differs by width
/// (measured on an H200): 32-bit forms read only the low byte of each (modulo 256), 64-bit forms
/// take the full 32-bit values (`pos` = 256 extracts nothing: the result is the fill).
#[inline]
pub fn bfe(ty: ScalarType, a: u64, pos: u32, len: u32) -> u64 {
    let w = width(ty);
    let (pos, len) = if w == 64 {
        (pos as u64, len as u64)
    } else {
        ((pos & 0xff) as u64, (len & 0xff) as u64)
    };
    let w = w as u64;
    let a = mask(ty, a);
    let sbit = ty.is_signed() && len != 0 && (a >> (pos + len - 1).min(w - 1)) & 1 == 1;
    let fill = if sbit { u64::MAX } else { 0 };
    if pos >= w {
        return mask(ty, fill);
    }
    let n = len.min(w - pos);
    let field_mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    mask(ty, ((a >> pos) & field_mask) | (fill & !field_mask))
}

/// `bfi`: inserts the low `len` bits of `a` into `b` at bit `pos` (low bytes of `pos`/`len`);
/// bits that would land past the type's top are dropped.
#[inline]
pub fn bfi(ty: ScalarType, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let (pos, len, w) = (pos & 0xff, len & 0xff, width(ty));
    if pos >= w {
        return mask(ty, b);
    }
    let n = len.min(w - pos);
    let field_mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    mask(ty, (b & !(field_mask << pos)) | ((a & field_mask) << pos))
}

/// A `prmt` mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmtMode {
    /// No mode: four 4-bit selectors, bit 3 of each replicating the chosen byte's sign.
    Generic,
    /// `.f4e`: forward 4 extract.
    F4e,
    /// `.b4e`: backward 4 extract.
    B4e,
    /// `.rc8`: replicate 8.
    Rc8,
    /// `.ecl`: edge clamp left.
    Ecl,
    /// `.ecr`: edge clamp right.
    Ecr,
    /// `.rc16`: replicate 16.
    Rc16,
}

impl PrmtMode {
    /// Parses a mode word without its dot (`None` for the generic form); unknown words give
    /// `None`.
    pub fn from_word(word: Option<&str>) -> Option<PrmtMode> {
        Some(match word {
            None => PrmtMode::Generic,
            Some("f4e") => PrmtMode::F4e,
            Some("b4e") => PrmtMode::B4e,
            Some("rc8") => PrmtMode::Rc8,
            Some("ecl") => PrmtMode::Ecl,
            Some("ecr") => PrmtMode::Ecr,
            Some("rc16") => PrmtMode::Rc16,
            Some(_) => return None,
        })
    }
}

/// `prmt.b32{.mode}` with the mode as written (`None`, `Some("f4e")` …); an unknown mode word is
/// treated as the generic form. Prefer [`prmt_mode`] with a decoded mode on hot paths.
#[inline]
pub fn prmt(a: u32, b: u32, sel: u32, mode: Option<&str>) -> u32 {
    prmt_mode(
        a,
        b,
        sel,
        PrmtMode::from_word(mode).unwrap_or(PrmtMode::Generic),
    )
}

/// `prmt.b32{.mode}`: picks bytes of the 8-byte value `{b, a}` (`a` is bytes 0–3).
#[inline]
pub fn prmt_mode(a: u32, b: u32, sel: u32, mode: PrmtMode) -> u32 {
    let source = (b as u64) << 32 | a as u64;
    let pick = |i: u32| ((source >> (8 * (i & 7))) & 0xff) as u32;
    let c = sel & 3;
    let mut d = 0u32;
    for i in 0..4u32 {
        let byte = match mode {
            PrmtMode::Generic => {
                let nibble = sel >> (4 * i);
                let byte = pick(nibble);
                if nibble & 8 != 0 {
                    if byte & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    byte
                }
            }
            PrmtMode::F4e => pick(c + i),
            PrmtMode::B4e => pick(c.wrapping_sub(i)),
            PrmtMode::Rc8 => pick(c),
            PrmtMode::Ecl => pick(c.max(i)),
            PrmtMode::Ecr => pick(c.min(i)),
            PrmtMode::Rc16 => pick((c & 1) * 2 + (i & 1)),
        };
        d |= byte << (8 * i);
    }
    d
}

/// `brev`: reverses the bits within the type's width.
#[inline]
pub fn brev(ty: ScalarType, a: u64) -> u64 {
    a.reverse_bits() >> (64 - width(ty))
}

/// `clz`: leading zeros within the type's width.
#[inline]
pub fn clz(ty: ScalarType, a: u64) -> u32 {
    mask(ty, a).leading_zeros() - (64 - width(ty))
}

/// `popc`: set bits within the type's width.
#[inline]
pub fn popc(ty: ScalarType, a: u64) -> u32 {
    mask(ty, a).count_ones()
}

/// `bfind{.shiftamt}`: the position of the most significant non-sign bit (for negative signed
/// values, the most significant 0), or `0xffffffff` if there is none; `.shiftamt` gives
/// `width − 1 − position` instead (the left shift that normalizes the value).
#[inline]
pub fn bfind(ty: ScalarType, a: u64, shiftamt: bool) -> u32 {
    let w = width(ty);
    let mut v = mask(ty, a);
    if ty.is_signed() && (v >> (w - 1)) & 1 == 1 {
        v = mask(ty, !v);
    }
    if v == 0 {
        return u32::MAX;
    }
    let pos = 63 - v.leading_zeros();
    if shiftamt {
        w - 1 - pos
    } else {
        pos
    }
}

/// `fns.b32`: the bit position of the `offset`-th set bit of `mask` counting from `base`
/// (inclusive) toward the MSB (`offset > 0`) or the LSB (`offset < 0`); `offset == 0` tests bit
/// `base` itself. `0xffffffff` when there is none (also for `base > 31`).
#[inline]
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    if offset == 0 {
        return if mask >> base & 1 == 1 {
            base
        } else {
            u32::MAX
        };
    }
    let n = offset.unsigned_abs();
    if offset > 0 {
        let mut m = mask & (u32::MAX << base);
        if m.count_ones() < n {
            return u32::MAX;
        }
        for _ in 1..n {
            m &= m - 1;
        }
        m.trailing_zeros()
    } else {
        let mut m = mask & (u32::MAX >> (31 - base));
        if m.count_ones() < n {
            return u32::MAX;
        }
        for _ in 1..n {
            m &= !(1u32 << (31 - m.leading_zeros()));
        }
        31 - m.leading_zeros()
    }
}

/// `lop3.b32`: the bitwise function of `a`, `b`, `c` whose truth table is `lut` (bit `i` is the
/// result for `a = i>>2 & 1`, `b = i>>1 & 1`, `c = i & 1`: `a` is `0xf0`, `b` `0xcc`, `c` `0xaa`).
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..8 {
        if (lut >> i) & 1 == 1 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    d
}

/// `shf.l`/`shf.r` `.clamp`/`.wrap`: funnel shift of the 64-bit `{b, a}`; `.l` returns the high
/// word after shifting left, `.r` the low word after shifting right. `.clamp` limits the amount
/// to 32, `.wrap` takes it modulo 32.
#[inline]
pub fn shf(a: u32, b: u32, shift: u32, left: bool, clamp: bool) -> u32 {
    let n = if clamp { shift.min(32) } else { shift & 31 };
    let both = (b as u64) << 32 | a as u64;
    if left {
        ((both << n) >> 32) as u32
    } else {
        (both >> n) as u32
    }
}

/// `bmsk.clamp`/`.wrap`: a mask of `len` ones starting at bit `pos` (bits past 31 dropped);
/// `.clamp` limits each operand to 32, `.wrap` takes them modulo 32.
#[inline]
pub fn bmsk(pos: u32, len: u32, clamp: bool) -> u32 {
    let (pos, len) = if clamp {
        (pos.min(32), len.min(32))
    } else {
        (pos & 31, len & 31)
    };
    (((1u64 << len) - 1) << pos) as u32
}

/// `szext.clamp`/`.wrap` `.s32`/`.u32`: sign- or zero-extends the low `pos` bits of `a`
/// (`.clamp` limits `pos` to 32, `.wrap` takes it modulo 32; 0 bits give 0).
#[inline]
pub fn szext(a: u32, pos: u32, signed: bool, clamp: bool) -> u32 {
    let n = if clamp { pos.min(32) } else { pos & 31 };
    if n == 0 {
        return 0;
    }
    let unused = 32 - n;
    if signed {
        (((a << unused) as i32) >> unused) as u32
    } else {
        (a << unused) >> unused
    }
}

#[cfg(test)]
#[path = "bits_tests.rs"]
mod tests;
