//! Integer and bit-manipulation instructions: `add`/`sub` (with `.sat` and carries), `mul`,
//! `mad` (`.lo`/`.hi`/`.wide`), `mul24`/`mad24`, `div`, `rem`, `min`/`max`, `neg`, `abs`,
//! logic, shifts, `popc`, `clz`, `brev`, `bfind`, `bfe`, `bfi`, `prmt`, `shf`, `lop3`, `dp4a`,
//! `dp2a`, `sad`, `bmsk`, `szext`, `fns`. The arithmetic itself is in [`numeric::integer`].

use super::{for_lanes, Flow};
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{IntBin, IntTer, IntUn, Op, Src};
use crate::interp::numeric::bits::PrmtMode;
use crate::interp::numeric::{bits as nb, integer as ni};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Flag, KnownOpcode as K, Modifier, ScalarType as T};

/// The type twice as wide (for `.wide` accumulators).
fn wide(t: T) -> T {
    match t {
        T::U16 => T::U32,
        T::S16 => T::S32,
        T::U32 => T::U64,
        T::S32 => T::S64,
        other => other,
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let t = inst.ty().ok_or_else(|| d.error(inst, "missing type"))?;
    if matches!(t, T::U16x2 | T::S16x2) {
        return Err(d.error(
            inst,
            "packed 16-bit integer SIMD is not supported on the CPU device",
        ));
    }
    if t == T::Pred && matches!(op, K::And | K::Or | K::Xor | K::Not | K::Cnot) {
        return super::compare::decode_pred_op(d, inst, op);
    }
    let dst = d.dst_at(inst, 0)?;
    let s = |i: usize, ty: T| d.src_at(inst, i, ty);
    let bin = |k: IntBin| -> Result<Op, LoadError> {
        Ok(Op::IntBin {
            k,
            t,
            d: dst,
            a: s(1, t)?,
            b: s(2, t)?,
        })
    };
    let un = |k: IntUn| -> Result<Op, LoadError> {
        Ok(Op::IntUn {
            k,
            t,
            d: dst,
            a: s(1, t)?,
        })
    };
    let ter = |k: IntTer, bt: T, ct: T| -> Result<Op, LoadError> {
        Ok(Op::IntTer {
            k,
            t,
            d: dst,
            a: s(1, t)?,
            b: s(2, bt)?,
            c: s(3, ct)?,
        })
    };
    let cc = d.carry_reg;
    let hi = inst.has(Flag::Hi);
    let relu = inst
        .modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Flag(Flag::Relu)));
    Ok(match op {
        K::Add if inst.has(Flag::Cc) => bin(IntBin::Carry {
            sub: false,
            carry_in: false,
            carry_out: true,
            cc,
        })?,
        K::Sub if inst.has(Flag::Cc) => bin(IntBin::Carry {
            sub: true,
            carry_in: false,
            carry_out: true,
            cc,
        })?,
        K::Addc => bin(IntBin::Carry {
            sub: false,
            carry_in: true,
            carry_out: inst.has(Flag::Cc),
            cc,
        })?,
        K::Subc => bin(IntBin::Carry {
            sub: true,
            carry_in: true,
            carry_out: inst.has(Flag::Cc),
            cc,
        })?,
        K::Add if inst.has(Flag::Sat) => bin(IntBin::AddSat)?,
        K::Sub if inst.has(Flag::Sat) => bin(IntBin::SubSat)?,
        K::Add => bin(IntBin::Add)?,
        K::Sub => bin(IntBin::Sub)?,
        K::Mul if hi => bin(IntBin::MulHi)?,
        K::Mul if inst.has(Flag::Wide) => bin(IntBin::MulWide)?,
        K::Mul => bin(IntBin::MulLo)?,
        K::Mul24 => bin(if hi { IntBin::Mul24Hi } else { IntBin::Mul24Lo })?,
        K::Div => bin(IntBin::Div)?,
        K::Rem => bin(IntBin::Rem)?,
        K::Min => bin(if relu { IntBin::MinRelu } else { IntBin::Min })?,
        K::Max => bin(if relu { IntBin::MaxRelu } else { IntBin::Max })?,
        K::And => bin(IntBin::And)?,
        K::Or => bin(IntBin::Or)?,
        K::Xor => bin(IntBin::Xor)?,
        K::Shl => Op::IntBin {
            k: IntBin::Shl,
            t,
            d: dst,
            a: s(1, t)?,
            b: s(2, T::U32)?,
        },
        K::Shr => Op::IntBin {
            k: IntBin::Shr,
            t,
            d: dst,
            a: s(1, t)?,
            b: s(2, T::U32)?,
        },
        K::Bmsk => bin(IntBin::Bmsk {
            wrap: inst.has(Flag::Wrap),
        })?,
        K::Neg => un(IntUn::Neg)?,
        K::Not => un(IntUn::Not)?,
        K::Cnot => un(IntUn::Cnot)?,
        K::Abs => un(IntUn::Abs)?,
        K::Popc => un(IntUn::Popc)?,
        K::Clz => un(IntUn::Clz)?,
        K::Brev => un(IntUn::Brev)?,
        K::Bfind => un(IntUn::Bfind {
            shiftamt: inst.has(Flag::Shiftamt),
        })?,
        K::Mad if inst.has(Flag::Cc) => ter(
            IntTer::Madc {
                hi,
                carry_in: false,
                carry_out: true,
                cc,
            },
            t,
            t,
        )?,
        K::Madc => ter(
            IntTer::Madc {
                hi,
                carry_in: true,
                carry_out: inst.has(Flag::Cc),
                cc,
            },
            t,
            t,
        )?,
        K::Mad if hi && inst.has(Flag::Sat) => ter(IntTer::MadHiSat, t, t)?,
        K::Mad if hi => ter(IntTer::MadHi, t, t)?,
        K::Mad if inst.has(Flag::Wide) => ter(IntTer::MadWide, t, wide(t))?,
        K::Mad => ter(IntTer::MadLo, t, t)?,
        K::Mad24 => ter(if hi { IntTer::Mad24Hi } else { IntTer::Mad24Lo }, t, t)?,
        K::Bfe => ter(IntTer::Bfe, T::U32, T::U32)?,
        K::Sad => ter(IntTer::Sad, t, t)?,
        K::Fns => ter(IntTer::Fns, T::U32, T::S32)?,
        K::Szext => Op::IntTer {
            k: IntTer::Szext {
                wrap: inst.has(Flag::Wrap),
            },
            t,
            d: dst,
            a: s(1, t)?,
            b: s(2, T::U32)?,
            c: Src::Imm(0),
        },
        K::Dp4a | K::Dp2a => {
            let types: Vec<T> = inst.types().collect();
            let (ta, tb) = (
                types.first().copied().unwrap_or(T::U32),
                types.get(1).copied().unwrap_or(T::U32),
            );
            let k = if op == K::Dp4a {
                IntTer::Dp4a {
                    a_signed: ta.is_signed(),
                    b_signed: tb.is_signed(),
                }
            } else {
                IntTer::Dp2a {
                    hi,
                    a_signed: ta.is_signed(),
                    b_signed: tb.is_signed(),
                }
            };
            Op::IntTer {
                k,
                t: T::U32,
                d: dst,
                a: s(1, ta)?,
                b: s(2, tb)?,
                c: s(3, T::U32)?,
            }
        }
        K::Bfi => Op::Bfi {
            bits: (t.size() * 8) as u8,
            d: dst,
            a: s(1, t)?,
            b: s(2, t)?,
            c: s(3, T::U32)?,
            e: s(4, T::U32)?,
        },
        K::Prmt => {
            let word = inst.modifiers.iter().find_map(|m| match m {
                Modifier::Other(w) => Some(w.as_str()),
                _ => None,
            });
            let mode = PrmtMode::from_word(word).ok_or_else(|| {
                d.error(inst, format!("unknown prmt mode `{}`", word.unwrap_or("")))
            })?;
            Op::Prmt {
                mode,
                d: dst,
                a: s(1, T::B32)?,
                b: s(2, T::B32)?,
                c: s(3, T::B32)?,
            }
        }
        K::Shf => Op::Shf {
            left: inst.has(Flag::Left),
            wrap: inst.has(Flag::Wrap),
            d: dst,
            a: s(1, T::B32)?,
            b: s(2, T::B32)?,
            c: s(3, T::U32)?,
        },
        K::Lop3 => Op::Lop3 {
            d: dst,
            a: s(1, T::B32)?,
            b: s(2, T::B32)?,
            c: s(3, T::B32)?,
            lut: s(4, T::B32)?,
        },
        other => {
            return Err(d.error(
                inst,
                format!("`{}` is not supported on the CPU device", other.as_str()),
            ))
        }
    })
}

#[inline(always)]
fn bin(w: &mut Warp, mask: u32, d: u32, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    super::lanes::map2(w, mask, d, a, b, f);
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn ter(w: &mut Warp, mask: u32, d: u32, a: Src, b: Src, c: Src, f: impl Fn(u64, u64, u64) -> u64) {
    super::lanes::map3(w, mask, d, a, b, c, f);
}

fn carry(
    w: &mut Warp,
    mask: u32,
    cc: u32,
    carry_in: bool,
    carry_out: bool,
    d: u32,
    f: impl Fn(usize, &Warp, bool) -> (u64, bool),
) {
    for_lanes!(mask, |l| {
        let cin = carry_in && w.get(Src::Reg(cc), l) != 0;
        let (v, cout) = f(l, w, cin);
        w.set(d, l, v);
        if carry_out {
            w.set(cc, l, u64::from(cout));
        }
    });
}

pub(super) fn execute(op: &Op, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    // Operations whose result is a function of the operands alone, not inline below.
    let lanes = |x: u64, y: u64, z: u64| evaluate(op, x, y, z).unwrap_or(0);
    match *op {
        Op::IntBin { k, t, d, a, b } => match k {
            IntBin::Add => bin(w, mask, d, a, b, |x, y| ni::add_int(t, x, y)),
            IntBin::Sub => bin(w, mask, d, a, b, |x, y| ni::sub_int(t, x, y)),
            IntBin::MulLo => bin(w, mask, d, a, b, |x, y| ni::mul_lo(t, x, y)),
            IntBin::MulWide => bin(w, mask, d, a, b, |x, y| ni::mul_wide(t, x, y)),
            IntBin::MulHi => bin(w, mask, d, a, b, |x, y| ni::mul_hi(t, x, y)),
            IntBin::Div => bin(w, mask, d, a, b, |x, y| ni::div_int(t, x, y)),
            IntBin::Rem => bin(w, mask, d, a, b, |x, y| ni::rem_int(t, x, y)),
            IntBin::Min => bin(w, mask, d, a, b, |x, y| ni::min_int(t, x, y)),
            IntBin::Max => bin(w, mask, d, a, b, |x, y| ni::max_int(t, x, y)),
            IntBin::And => bin(w, mask, d, a, b, |x, y| ni::mask(t, x & y)),
            IntBin::Or => bin(w, mask, d, a, b, |x, y| ni::mask(t, x | y)),
            IntBin::Xor => bin(w, mask, d, a, b, |x, y| ni::mask(t, x ^ y)),
            IntBin::Shl => bin(w, mask, d, a, b, |x, y| ni::shl(t, x, y as u32)),
            IntBin::Shr => bin(w, mask, d, a, b, |x, y| ni::shr(t, x, y as u32)),
            IntBin::Carry {
                sub,
                carry_in,
                carry_out,
                cc,
            } => carry(w, mask, cc, carry_in, carry_out, d, |l, w, cin| {
                let (x, y) = (w.get(a, l), w.get(b, l));
                if sub {
                    ni::sub_borrow(t, x, y, cin)
                } else {
                    ni::add_carry(t, x, y, cin)
                }
            }),
            _ => bin(w, mask, d, a, b, |x, y| lanes(x, y, 0)),
        },
        Op::IntUn { k, t, d, a } => {
            super::lanes::map1(w, mask, d, a, |x| unary(k, t, x));
        }
        Op::IntTer { k, t, d, a, b, c } => match k {
            IntTer::MadLo => ter(w, mask, d, a, b, c, |x, y, z| ni::mad_lo(t, x, y, z)),
            IntTer::MadWide => ter(w, mask, d, a, b, c, |x, y, z| ni::mad_wide(t, x, y, z)),
            IntTer::Madc {
                hi,
                carry_in,
                carry_out,
                cc,
            } => carry(w, mask, cc, carry_in, carry_out, d, |l, w, cin| {
                let (x, y, z) = (w.get(a, l), w.get(b, l), w.get(c, l));
                let product = if hi {
                    ni::mul_hi(t, x, y)
                } else {
                    ni::mul_lo(t, x, y)
                };
                ni::add_carry(t, product, z, cin)
            }),
            IntTer::Szext { .. } => bin(w, mask, d, a, b, |x, y| lanes(x, y, 0)),
            _ => ter(w, mask, d, a, b, c, lanes),
        },
        Op::Bfi { d, a, b, c, e, .. } => {
            for_lanes!(mask, |l| {
                let (x, y) = (w.get(a, l), w.get(b, l));
                let at = (w.get(c, l) & 0xffff_ffff) | (w.get(e, l) << 32);
                w.set(d, l, lanes(x, y, at));
            });
        }
        Op::Prmt { d, a, b, c, .. } | Op::Shf { d, a, b, c, .. } => ter(w, mask, d, a, b, c, lanes),
        Op::Lop3 { d, a, b, c, lut } => {
            for_lanes!(mask, |l| {
                let v = nb::lop3(
                    w.get(a, l) as u32,
                    w.get(b, l) as u32,
                    w.get(c, l) as u32,
                    w.get(lut, l) as u8,
                );
                w.set(d, l, u64::from(v));
            });
        }
        _ => {}
    }
    Ok(Flow::Next)
}

/// One lane's result of an integer operation that is a function of its operands alone (no
/// carry flag, no table in a register): `x`, `y`, `z` are its operands' values; `bfi` takes
/// its position and length in `z`'s low and high 32 bits, `lop3` its table from the
/// instruction. `None` for any other operation. The interpreter's arithmetic, and what
/// compiled code calls for the operations it does not emit inline.
pub fn evaluate(op: &Op, x: u64, y: u64, z: u64) -> Option<u64> {
    Some(match *op {
        Op::IntBin { k, t, .. } => match k {
            IntBin::Add => ni::add_int(t, x, y),
            IntBin::Sub => ni::sub_int(t, x, y),
            IntBin::AddSat => ni::add_sat_s32(x as i32, y as i32) as u32 as u64,
            IntBin::SubSat => ni::sub_sat_s32(x as i32, y as i32) as u32 as u64,
            IntBin::MulLo => ni::mul_lo(t, x, y),
            IntBin::MulHi => ni::mul_hi(t, x, y),
            IntBin::MulWide => ni::mul_wide(t, x, y),
            IntBin::Mul24Lo => ni::mul24(t, x, y, false),
            IntBin::Mul24Hi => ni::mul24(t, x, y, true),
            IntBin::Div => ni::div_int(t, x, y),
            IntBin::Rem => ni::rem_int(t, x, y),
            IntBin::Min => ni::min_int(t, x, y),
            IntBin::Max => ni::max_int(t, x, y),
            IntBin::MinRelu => ni::relu_int(t, ni::min_int(t, x, y)),
            IntBin::MaxRelu => ni::relu_int(t, ni::max_int(t, x, y)),
            IntBin::And => ni::mask(t, x & y),
            IntBin::Or => ni::mask(t, x | y),
            IntBin::Xor => ni::mask(t, x ^ y),
            IntBin::Shl => ni::shl(t, x, y as u32),
            IntBin::Shr => ni::shr(t, x, y as u32),
            IntBin::Bmsk { wrap } => u64::from(nb::bmsk(x as u32, y as u32, !wrap)),
            IntBin::Carry { .. } => return None,
        },
        Op::IntTer { k, t, .. } => match k {
            IntTer::MadLo => ni::mad_lo(t, x, y, z),
            IntTer::MadHi => ni::mad_hi(t, x, y, z, false),
            IntTer::MadHiSat => ni::mad_hi(t, x, y, z, true),
            IntTer::MadWide => ni::mad_wide(t, x, y, z),
            IntTer::Mad24Lo => ni::mad24(t, x, y, z, false, false),
            IntTer::Mad24Hi => ni::mad24(t, x, y, z, true, false),
            IntTer::Bfe => nb::bfe(t, x, y as u32, z as u32),
            IntTer::Sad => ni::sad(t, x, y, z),
            IntTer::Fns => u64::from(nb::fns(x as u32, y as u32, z as i32)),
            IntTer::Dp4a { a_signed, b_signed } => {
                u64::from(ni::dp4a(x as u32, y as u32, z as u32, a_signed, b_signed))
            }
            IntTer::Dp2a {
                hi,
                a_signed,
                b_signed,
            } => u64::from(ni::dp2a(
                x as u32, y as u32, z as u32, hi, a_signed, b_signed,
            )),
            IntTer::Szext { wrap } => {
                u64::from(nb::szext(x as u32, y as u32, t.is_signed(), !wrap))
            }
            IntTer::CvtPackSat => u64::from(ni::cvt_pack_sat(
                t.size() * 8,
                t.is_signed(),
                x as u32,
                y as u32,
                z as u32,
            )),
            IntTer::Madc { .. } => return None,
        },
        Op::Bfi { bits, .. } => {
            let t = if bits == 64 { T::B64 } else { T::B32 };
            nb::bfi(t, x, y, z as u32, (z >> 32) as u32)
        }
        Op::Prmt { mode, .. } => u64::from(nb::prmt_mode(x as u32, y as u32, z as u32, mode)),
        Op::Shf { left, wrap, .. } => u64::from(nb::shf(x as u32, y as u32, z as u32, left, !wrap)),
        Op::Lop3 {
            lut: Src::Imm(lut), ..
        } => u64::from(nb::lop3(x as u32, y as u32, z as u32, lut as u8)),
        _ => return None,
    })
}

/// One lane's result of a one-operand integer instruction.
#[inline(always)]
pub fn unary(k: IntUn, t: T, x: u64) -> u64 {
    match k {
        IntUn::Neg => ni::neg_int(t, x),
        IntUn::Not => ni::mask(t, !x),
        IntUn::Cnot => u64::from(ni::mask(t, x) == 0),
        IntUn::Abs => ni::abs_int(t, x),
        IntUn::Popc => u64::from(nb::popc(t, x)),
        IntUn::Clz => u64::from(nb::clz(t, x)),
        IntUn::Brev => nb::brev(t, x),
        IntUn::Bfind { shiftamt } => u64::from(nb::bfind(t, x, shiftamt)),
    }
}
