//! Moves and conversions: `mov` (including packing and unpacking vectors), `cvt` between all
//! types (through [`numeric::convert`]), `cvta` between state-space and generic addresses, and
//! `isspacep`.
//!
//! [`numeric::convert`]: crate::interp::numeric::convert

use super::{for_lanes, Flow, Launch};
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{IntTer, Op, Space, Src};
use crate::interp::memory::{Window, LOCAL_WINDOW, SHARED_WINDOW};
use crate::interp::numeric::convert::{self as nv, CvtOptions};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, Flag, KnownOpcode as K, Operand, ScalarType as T};

fn bits_of(t: T) -> u8 {
    if t == T::Pred {
        64
    } else {
        (t.size() * 8).min(64) as u8
    }
}

fn width_mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let types: Vec<T> = inst.types().collect();
    if op == K::Isspacep {
        return Ok(Op::Isspacep {
            space: space_of(inst),
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, T::U64)?,
        });
    }
    let ty = *types.first().ok_or_else(|| d.error(inst, "missing type"))?;
    if ty == T::B128 {
        return Err(d.error(
            inst,
            "128-bit registers are not supported on the CPU device",
        ));
    }
    match op {
        K::Mov => {
            let bits = bits_of(ty);
            match (inst.operands.first(), inst.operands.get(1)) {
                (Some(Operand::Vector(dsts)), Some(src)) if !matches!(src, Operand::Vector(_)) => {
                    Ok(Op::Unpack {
                        ds: d.dsts(inst, &Operand::Vector(dsts.clone()))?,
                        a: d.src(inst, src, ty)?,
                        part: bits / dsts.len().max(1) as u8,
                    })
                }
                (Some(dst), Some(Operand::Vector(parts))) if !matches!(dst, Operand::Vector(_)) => {
                    let part = bits / parts.len().max(1) as u8;
                    let part_ty = match part {
                        8 => T::B8,
                        16 => T::B16,
                        32 => T::B32,
                        _ => T::B64,
                    };
                    Ok(Op::Pack {
                        d: d.dst(inst, dst)?,
                        parts: parts
                            .iter()
                            .map(|p| d.src(inst, p, part_ty))
                            .collect::<Result<_, _>>()?,
                        part,
                    })
                }
                _ => Ok(Op::Mov {
                    d: d.dst_at(inst, 0)?,
                    a: d.src_at(inst, 1, ty)?,
                    bits,
                }),
            }
        }
        K::Cvt => {
            let dst = ty;
            let src = *types.get(1).unwrap_or(&ty);
            let options = Box::new(CvtOptions {
                rnd: inst.rounding(),
                ftz: inst.has(Flag::Ftz),
                sat: inst.has(Flag::Sat),
                satfinite: inst.has(Flag::Satfinite),
                relu: inst.has(Flag::Relu),
            });
            if !dst.is_float() && inst.modifiers.iter().any(|m| m.to_word() == "pack") {
                return int_pack(d, inst, dst, &types);
            }
            if inst.operands.len() >= 3 {
                return Ok(Op::CvtPack {
                    dst,
                    options,
                    d: d.dst_at(inst, 0)?,
                    a: d.src_at(inst, 1, src)?,
                    b: d.src_at(inst, 2, src)?,
                });
            }
            Ok(Op::Cvt {
                dst,
                src,
                options,
                d: d.dst_at(inst, 0)?,
                a: d.src_at(inst, 1, src)?,
            })
        }
        K::Cvta => Ok(Op::Cvta {
            to: inst.has(Flag::To),
            space: space_of(inst),
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, ty)?,
            bits: bits_of(ty),
        }),
        _ => Ok(Op::Isspacep {
            space: space_of(inst),
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, T::U64)?,
        }),
    }
}

/// A state-space address converted to a generic one (`to` = false) or back.
fn cvta(space: Space, to: bool, a: u64) -> u64 {
    let window = match space {
        Space::Shared => SHARED_WINDOW,
        Space::Local => LOCAL_WINDOW,
        _ => 0,
    };
    if to {
        a.wrapping_sub(window)
    } else {
        a.wrapping_add(window)
    }
}

/// `cvt.pack.sat.{u16,s16,u8,s8}.s32.b32 d, a, b(, c)`: two saturated integers packed into
/// one word (`c` for the 8-bit forms only).
fn int_pack(d: &Decoder<'_>, inst: &ir::Instruction, dst: T, types: &[T]) -> Result<Op, LoadError> {
    let eight = matches!(dst, T::U8 | T::S8);
    let form = matches!(dst, T::U16 | T::S16 | T::U8 | T::S8)
        && types.get(1..) == Some(&[T::S32, T::B32][..])
        && inst.has(Flag::Sat)
        && inst.operands.len() == if eight { 4 } else { 3 };
    if !form {
        return Err(d.error(
            inst,
            "`cvt.pack` takes .sat, a 16- or 8-bit type, .s32.b32 and three (16-bit) or four \
             (8-bit) operands (the .u4/.s4/.u2/.s2 forms are not supported on the CPU device)",
        ));
    }
    Ok(Op::IntTer {
        k: IntTer::CvtPackSat,
        t: dst,
        d: d.dst_at(inst, 0)?,
        a: d.src_at(inst, 1, T::S32)?,
        b: d.src_at(inst, 2, T::S32)?,
        c: if eight {
            d.src_at(inst, 3, T::B32)?
        } else {
            Src::Imm(0)
        },
    })
}

pub(super) fn execute(op: &Op, w: &mut Warp, l: &Launch<'_>, mask: u32) -> Result<Flow, ExecFault> {
    match op {
        Op::Mov { d, a, bits } => {
            let m = width_mask(*bits);
            super::lanes::map1(w, mask, *d, *a, |x| x & m);
        }
        Op::Pack { d, parts, part } => {
            let m = width_mask(*part);
            for_lanes!(mask, |lane| {
                let mut v = 0u64;
                for (i, p) in parts.iter().enumerate() {
                    v |= (w.get(*p, lane) & m)
                        .checked_shl(i as u32 * u32::from(*part))
                        .unwrap_or(0);
                }
                w.set(*d, lane, v);
            });
        }
        Op::Unpack { ds, a, part } => {
            let m = width_mask(*part);
            for_lanes!(mask, |lane| {
                let v = w.get(*a, lane);
                for (i, d) in ds.iter().enumerate() {
                    w.set(
                        *d,
                        lane,
                        v.checked_shr(i as u32 * u32::from(*part)).unwrap_or(0) & m,
                    );
                }
            });
        }
        Op::Cvt {
            dst,
            src,
            options,
            d,
            a,
        } => {
            for_lanes!(mask, |lane| {
                let v = nv::cvt_with(*dst, *src, w.get(*a, lane), options);
                w.set(*d, lane, v);
            });
        }
        Op::CvtPack {
            dst,
            options,
            d,
            a,
            b,
        } => {
            for_lanes!(mask, |lane| {
                let x = f32::from_bits(w.get(*a, lane) as u32);
                let y = f32::from_bits(w.get(*b, lane) as u32);
                w.set(*d, lane, u64::from(nv::cvt_pack_f32(*dst, x, y, options)));
            });
        }
        Op::Cvta {
            to,
            space,
            d,
            a,
            bits,
        } => {
            let m = width_mask(*bits);
            for_lanes!(mask, |lane| {
                let v = cvta(*space, *to, w.get(*a, lane)) & m;
                w.set(*d, lane, v);
            });
        }
        Op::Isspacep { space, d, a } => {
            for_lanes!(mask, |lane| {
                let addr = w.get(*a, lane);
                let r = match (space, Window::of(addr)) {
                    (Space::Shared, Window::Shared(_)) | (Space::Local, Window::Local(_)) => true,
                    (Space::Param, Window::Param(_)) => true,
                    (Space::Global, Window::Global) => l.memory.contains(addr).is_some(),
                    (Space::Const, Window::Global) => l.memory.contains(addr).is_some(),
                    _ => false,
                };
                w.set(*d, lane, u64::from(r));
            });
        }
        _ => {}
    }
    Ok(Flow::Next)
}
