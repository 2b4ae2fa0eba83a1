//! Atomic read-modify-write instructions (`atom`, `red`): `add`, `min`, `max`, `inc`, `dec`,
//! `and`, `or`, `xor`, `exch`, `cas` on 16/32/64-bit integers, `f32`/`f64` and packed
//! `f16x2`/`bf16x2` adds, in global, shared and generic memory. Global atomics are real atomics
//! on the allocation's words, so blocks running on different host threads see each other's
//! updates as on a GPU. Scopes and ordering semantics are accepted; every atomic is sequentially
//! consistent on the CPU device.

use super::memory_ops::{address, allocation, check_align, load, locate, store, Loc};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Op, Space, Src, SINK};
use crate::interp::numeric::{float as nf, half as nh};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, KnownOpcode as K, Op as IrOp, Rounding, ScalarType as T};

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let ty = inst
        .types()
        .last()
        .ok_or_else(|| d.error(inst, "missing type"))?;
    let aop = inst
        .ops()
        .next()
        .ok_or_else(|| d.error(inst, "missing atomic operation"))?;
    if matches!(aop, IrOp::Popc) || ty == T::B128 || inst.vector().is_some() {
        return Err(d.error(inst, "this atomic form is not supported on the CPU device"));
    }
    let space = match space_of(inst) {
        Space::Const | Space::Param | Space::Local => {
            return Err(d.error(inst, "atomics need global or shared memory"))
        }
        s => s,
    };
    let (dst, first) = if op == K::Atom {
        (d.dst_at(inst, 0)?, 1)
    } else {
        (SINK, 0)
    };
    let addr = d.addr(
        inst,
        inst.operands
            .get(first)
            .ok_or_else(|| d.error(inst, "missing address"))?,
        space,
    )?;
    let b = d.src_at(inst, first + 1, ty)?;
    let c = if aop == IrOp::Cas {
        d.src_at(inst, first + 2, ty)?
    } else {
        Src::Imm(0)
    };
    Ok(Op::Atom {
        space,
        op: aop,
        ty,
        d: dst,
        addr,
        b,
        c,
    })
}

fn mask(ty: T, v: u64) -> u64 {
    crate::interp::numeric::integer::mask(ty, v)
}

/// The value an atomic `op` of type `ty` with operands `b` and `c` leaves where `old` was
/// (None: memory stays unchanged, a failed `cas`). The interpreter's arithmetic, and what
/// compiled code calls for the atomics it does not emit inline.
#[inline]
pub fn apply(op: IrOp, ty: T, old: u64, b: u64, c: u64) -> Option<u64> {
    let signed = ty.is_signed();
    Some(match (op, ty) {
        (IrOp::Add, T::F32) => {
            let sum = nf::add_f32(
                nf::flush_f32(f32::from_bits(old as u32)),
                nf::flush_f32(f32::from_bits(b as u32)),
                Rounding::Rn,
            );
            u64::from(nf::flush_f32(sum).to_bits())
        }
        (IrOp::Add, T::F64) => {
            nf::add_f64(f64::from_bits(old), f64::from_bits(b), Rounding::Rn).to_bits()
        }
        (IrOp::Add, T::F16) => u64::from(nh::add_f16(
            old as u16,
            b as u16,
            Rounding::Rn,
            false,
            false,
        )),
        (IrOp::Add, T::Bf16) => u64::from(nh::add_bf16(
            old as u16,
            b as u16,
            Rounding::Rn,
            false,
            false,
        )),
        (IrOp::Add, T::F16x2) => u64::from(nh::add_f16x2(
            old as u32,
            b as u32,
            Rounding::Rn,
            false,
            false,
        )),
        (IrOp::Add, T::Bf16x2) => u64::from(nh::add_bf16x2(
            old as u32,
            b as u32,
            Rounding::Rn,
            false,
            false,
        )),
        (IrOp::Min | IrOp::Max, T::F32) => {
            let (x, y) = (f32::from_bits(old as u32), f32::from_bits(b as u32));
            let r = if op == IrOp::Min {
                nf::min_f32(x, y, false)
            } else {
                nf::max_f32(x, y, false)
            };
            u64::from(r.to_bits())
        }
        (IrOp::Min | IrOp::Max, T::F64) => {
            let (x, y) = (f64::from_bits(old), f64::from_bits(b));
            let r = if op == IrOp::Min {
                nf::min_f64(x, y, false)
            } else {
                nf::max_f64(x, y, false)
            };
            r.to_bits()
        }
        (IrOp::Add, _) => mask(ty, old.wrapping_add(b)),
        (IrOp::Min, _) if signed => crate::interp::numeric::integer::min_int(ty, old, b),
        (IrOp::Max, _) if signed => crate::interp::numeric::integer::max_int(ty, old, b),
        (IrOp::Min, _) => mask(ty, old).min(mask(ty, b)),
        (IrOp::Max, _) => mask(ty, old).max(mask(ty, b)),
        (IrOp::Inc, _) => {
            if mask(ty, old) >= mask(ty, b) {
                0
            } else {
                mask(ty, old + 1)
            }
        }
        (IrOp::Dec, _) => {
            let (o, bound) = (mask(ty, old), mask(ty, b));
            if o == 0 || o > bound {
                bound
            } else {
                o - 1
            }
        }
        (IrOp::And, _) => old & b,
        (IrOp::Or, _) => old | b,
        (IrOp::Xor, _) => old ^ b,
        (IrOp::Exch, _) => b,
        (IrOp::Cas, _) => {
            if mask(ty, old) == mask(ty, b) {
                c
            } else {
                return None;
            }
        }
        (IrOp::Popc, _) => return None,
    })
}

pub(super) fn execute(
    op: &Op,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    lanes: u32,
) -> Result<Flow, ExecFault> {
    let Op::Atom {
        space,
        op,
        ty,
        d,
        addr,
        b: bsrc,
        c: csrc,
    } = op
    else {
        return Ok(Flow::Next);
    };
    let (op, ty) = (*op, *ty);
    let len = u64::from(ty.size());
    for_lanes!(lanes, |lane| {
        let a = address(w, addr, lane);
        check_align(a, len, lane)?;
        let (bv, cv) = (w.get(*bsrc, lane), w.get(*csrc, lane));
        let old = match locate(*space, addr, a) {
            Loc::Global(g) => {
                let alloc = allocation(w, l, g, len, lane)?;
                alloc.atomic(g - alloc.base, len as u32, |old| apply(op, ty, old, bv, cv))
            }
            loc => {
                // Shared and local memory belong to this block's host thread: a plain
                // read-modify-write is atomic.
                let old = load(w, b, l, loc, len, lane, a)?;
                if let Some(new) = apply(op, ty, old, bv, cv) {
                    store(w, b, l, loc, len, lane, a, new)?;
                }
                old
            }
        };
        w.set(*d, lane, old);
    });
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    Ok(Flow::Next)
}
