//! Comparisons and selections: `setp`, `set`, `selp`, `slct`, `testp`, and the boolean
//! instructions on predicates (`and.pred`, `or.pred`, `xor.pred`, `not.pred`, `cnot.pred`).

use super::{for_lanes, Flow};
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Op, Src, SINK};
use crate::interp::numeric::{compare as nc, float as nf, half as nh};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Compare, Flag, KnownOpcode as K, Op as IrOp, Operand, ScalarType as T};

/// Splits `p|q` destinations (a predicate pair; two plain operands are accepted too).
/// Returns (p, q, index of the first source).
pub(super) fn pred_pair(
    d: &Decoder<'_>,
    inst: &ir::Instruction,
    sources: usize,
) -> Result<(u32, u32, usize), LoadError> {
    match inst.operands.first() {
        Some(Operand::PredicatePair(value, pred)) => Ok((
            d.dst(inst, value)?,
            d.dst(inst, &Operand::Register(pred.clone()))?,
            1,
        )),
        Some(Operand::Vector(v)) if v.len() == 2 => {
            Ok((d.dst(inst, &v[0])?, d.dst(inst, &v[1])?, 1))
        }
        _ if inst.operands.len() > sources + 1 => Ok((d.dst_at(inst, 0)?, d.dst_at(inst, 1)?, 2)),
        _ => Ok((d.dst_at(inst, 0)?, SINK, 1)),
    }
}

pub(super) fn decode_pred_op(
    d: &Decoder<'_>,
    inst: &ir::Instruction,
    op: K,
) -> Result<Op, LoadError> {
    let dst = d.dst_at(inst, 0)?;
    let a = d.src_at(inst, 1, T::Pred)?;
    let (op, b) = match op {
        K::And => (IrOp::And, d.src_at(inst, 2, T::Pred)?),
        K::Or => (IrOp::Or, d.src_at(inst, 2, T::Pred)?),
        K::Xor => (IrOp::Xor, d.src_at(inst, 2, T::Pred)?),
        // not/cnot: xor with 1.
        _ => (IrOp::Xor, Src::Imm(1)),
    };
    Ok(Op::PredLogic { op, d: dst, a, b })
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let types: Vec<T> = inst.types().collect();
    let first = *types.first().ok_or_else(|| d.error(inst, "missing type"))?;
    match op {
        K::Setp | K::Set => {
            let cmp = inst
                .compare()
                .ok_or_else(|| d.error(inst, "missing comparison"))?;
            let combine = inst.ops().next();
            let (set_ty, ty) = if op == K::Set {
                (Some(first), *types.get(1).unwrap_or(&first))
            } else {
                (None, first)
            };
            let sources = 2 + usize::from(combine.is_some());
            let (p, q, s) = if op == K::Setp {
                pred_pair(d, inst, sources)?
            } else {
                (d.dst_at(inst, 0)?, SINK, 1)
            };
            let c = if combine.is_some() {
                d.src_at(inst, s + 2, T::Pred)?
            } else {
                Src::Imm(1)
            };
            Ok(Op::Setp {
                cmp,
                ty,
                ftz: inst.has(Flag::Ftz),
                combine,
                p,
                q,
                a: d.src_at(inst, s, ty)?,
                b: d.src_at(inst, s + 1, ty)?,
                c,
                set_ty,
            })
        }
        K::Selp => Ok(Op::Selp {
            bits: (first.size() * 8).min(64) as u8,
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, first)?,
            b: d.src_at(inst, 2, first)?,
            c: d.src_at(inst, 3, T::Pred)?,
        }),
        K::Slct => {
            let cty = *types.get(1).unwrap_or(&T::S32);
            Ok(Op::Slct {
                bits: (first.size() * 8).min(64) as u8,
                cty,
                ftz: inst.has(Flag::Ftz),
                d: d.dst_at(inst, 0)?,
                a: d.src_at(inst, 1, first)?,
                b: d.src_at(inst, 2, first)?,
                c: d.src_at(inst, 3, cty)?,
            })
        }
        _ => {
            let kind = inst
                .modifiers
                .iter()
                .find_map(|m| match m.to_word().as_str() {
                    "finite" => Some("finite"),
                    "infinite" => Some("infinite"),
                    "number" => Some("number"),
                    "notanumber" => Some("notanumber"),
                    "normal" => Some("normal"),
                    "subnormal" => Some("subnormal"),
                    _ => None,
                })
                .ok_or_else(|| d.error(inst, "missing testp operation"))?;
            Ok(Op::Testp {
                kind,
                ty: first,
                d: d.dst_at(inst, 0)?,
                a: d.src_at(inst, 1, first)?,
            })
        }
    }
}

/// Compares two register values of type `ty`; for packed types, returns (low, high).
#[inline(always)]
/// `setp`'s comparison of two operands' bits (low and high halves for packed types).
pub fn compare(cmp: Compare, ty: T, ftz: bool, a: u64, b: u64) -> (bool, bool) {
    match ty {
        T::F32 => {
            let (mut x, mut y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            if ftz {
                x = nf::flush_f32(x);
                y = nf::flush_f32(y);
            }
            let r = nc::compare_f32(cmp, x, y);
            (r, r)
        }
        T::F64 => {
            let r = nc::compare_f64(cmp, f64::from_bits(a), f64::from_bits(b));
            (r, r)
        }
        T::F16 | T::Bf16 | T::F16x2 | T::Bf16x2 => {
            let one = |x: u16, y: u16| {
                let (x, y) = if ftz && matches!(ty, T::F16 | T::F16x2) {
                    (nh::flush_f16(x), nh::flush_f16(y))
                } else {
                    (x, y)
                };
                if matches!(ty, T::F16 | T::F16x2) {
                    nc::compare_f16(cmp, x, y)
                } else {
                    nc::compare_bf16(cmp, x, y)
                }
            };
            let lo = one(a as u16, b as u16);
            let hi = if matches!(ty, T::F16x2 | T::Bf16x2) {
                one((a >> 16) as u16, (b >> 16) as u16)
            } else {
                lo
            };
            (lo, hi)
        }
        _ => {
            let r = nc::compare_int(cmp, ty, a, b);
            (r, r)
        }
    }
}

fn combine(op: Option<IrOp>, x: bool, c: bool) -> bool {
    match op {
        None => x,
        Some(IrOp::And) => x && c,
        Some(IrOp::Or) => x || c,
        Some(_) => x ^ c,
    }
}

/// The value `set` writes for true/false in a destination of type `ty`.
fn set_value(ty: T, r: bool) -> u64 {
    match (ty, r) {
        (T::F32, true) => u64::from(1.0f32.to_bits()),
        (_, true) => u64::from(u32::MAX),
        (_, false) => 0,
    }
}

pub(super) fn execute(op: &Op, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    match *op {
        Op::Setp {
            cmp,
            ty,
            ftz,
            combine: comb,
            p,
            q,
            a,
            b,
            c,
            set_ty,
        } => {
            let packed = matches!(ty, T::F16x2 | T::Bf16x2);
            if set_ty.is_none() && comb.is_none() && !packed {
                let (ra, rb) = (w.row(a), w.row(b));
                let out: [u64; 32] =
                    std::array::from_fn(|l| u64::from(compare(cmp, ty, ftz, ra[l], rb[l]).0));
                w.write_row(p, mask, &out);
                if q != SINK {
                    w.write_row(q, mask, &out.map(|v| v ^ 1));
                }
                return Ok(Flow::Next);
            }
            for_lanes!(mask, |l| {
                let (lo, hi) = compare(cmp, ty, ftz, w.get(a, l), w.get(b, l));
                let cv = w.pred(c, l);
                match set_ty {
                    Some(dt) => w.set(p, l, set_value(dt, combine(comb, lo, cv))),
                    None if packed => {
                        w.set(p, l, u64::from(combine(comb, lo, cv)));
                        w.set(q, l, u64::from(combine(comb, hi, cv)));
                    }
                    None => {
                        w.set(p, l, u64::from(combine(comb, lo, cv)));
                        w.set(q, l, u64::from(combine(comb, !lo, cv)));
                    }
                }
            });
        }
        Op::Selp { bits, d, a, b, c } => {
            let m = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            super::lanes::map3(
                w,
                mask,
                d,
                a,
                b,
                c,
                |x, y, z| if z & 1 != 0 { x & m } else { y & m },
            );
        }
        Op::Slct {
            bits,
            cty,
            ftz,
            d,
            a,
            b,
            c,
        } => {
            let m = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            for_lanes!(mask, |l| {
                let cv = w.get(c, l);
                let take_a = if cty == T::F32 {
                    let x = f32::from_bits(cv as u32);
                    let x = if ftz { nf::flush_f32(x) } else { x };
                    x >= 0.0
                } else {
                    (cv as u32 as i32) >= 0
                };
                let v = if take_a { w.get(a, l) } else { w.get(b, l) };
                w.set(d, l, v & m);
            });
        }
        Op::Testp { kind, ty, d, a } => {
            for_lanes!(mask, |l| {
                let r = nc::testp(kind, ty, w.get(a, l));
                w.set(d, l, u64::from(r));
            });
        }
        Op::PredLogic { op, d, a, b } => {
            for_lanes!(mask, |l| {
                let (x, y) = (w.pred(a, l), w.pred(b, l));
                let r = match op {
                    IrOp::And => x && y,
                    IrOp::Or => x || y,
                    _ => x ^ y,
                };
                w.set(d, l, u64::from(r));
            });
        }
        _ => {}
    }
    Ok(Flow::Next)
}
