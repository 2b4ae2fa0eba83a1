//! Warp-wide matrix instructions of sm_80: `ldmatrix` (m8n8, x1/x2/x4, optionally transposed)
//! and `mma.sync` (m16n8k16 and m16n8k8 with f16 or bf16 inputs, m16n8k8 with tf32 inputs;
//! f32 or f16 accumulators). Fragments are laid out across the lanes as the PTX ISA specifies.
//! Products are summed in f64 and rounded once, which is at least as accurate as the tensor
//! cores but not bit-identical to them (compare within a tolerance).

use super::memory_ops::{address, load, locate};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src};
use crate::interp::numeric::half;
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, Operand, Rounding, ScalarType as T};

/// A decoded `mma.sync`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mma {
    /// K of the m16n8kK shape (8 or 16).
    pub k: usize,
    /// Element type of A and B (F16, Bf16 or Tf32).
    pub ab: T,
    /// Element type of C and D (F32 or F16).
    pub cd: T,
    pub d: Box<[u32]>,
    pub a: Box<[Src]>,
    pub b: Box<[Src]>,
    pub c: Box<[Src]>,
}

/// A decoded `ldmatrix`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ldmatrix {
    pub count: usize,
    pub trans: bool,
    pub space: Space,
    pub d: Box<[u32]>,
    pub addr: Addr,
}

fn words(inst: &ir::Instruction) -> Vec<String> {
    inst.modifiers.iter().map(|m| m.to_word()).collect()
}

pub(super) fn decode_ldmatrix(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let w = words(inst);
    if !w.iter().any(|x| x == "m8n8") || !w.iter().any(|x| x == "b16") {
        return Err(d.error(
            inst,
            "only `ldmatrix` .m8n8 .b16 is supported on the CPU device",
        ));
    }
    let count = if w.iter().any(|x| x == "x4") {
        4
    } else if w.iter().any(|x| x == "x2") {
        2
    } else {
        1
    };
    let dst = inst
        .operands
        .first()
        .ok_or_else(|| d.error(inst, "missing destination"))?;
    let addr = inst
        .operands
        .get(1)
        .ok_or_else(|| d.error(inst, "missing address"))?;
    let space = space_of(inst);
    Ok(Op::Ldmatrix(Box::new(Ldmatrix {
        count,
        trans: w.iter().any(|x| x == "trans"),
        space,
        d: d.dsts(inst, dst)?,
        addr: d.addr(inst, addr, space)?,
    })))
}

pub(super) fn decode_mma(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let w = words(inst);
    let unsupported = || {
        d.error(
            inst,
            "this `mma` shape or type is not supported on the CPU device",
        )
    };
    let k = if w.iter().any(|x| x == "m16n8k16") {
        16
    } else if w.iter().any(|x| x == "m16n8k8") {
        8
    } else {
        return Err(unsupported());
    };
    if !w.iter().any(|x| x == "row") || !w.iter().any(|x| x == "col") {
        return Err(unsupported());
    }
    let types: Vec<T> = inst.types().collect();
    let (cd, ab) = match types.as_slice() {
        [dt, at, bt, ct] if at == bt && dt == ct => (*dt, *at),
        _ => return Err(unsupported()),
    };
    let ok = matches!((ab, k), (T::F16 | T::Bf16, 8 | 16) | (T::Tf32, 8))
        && (cd == T::F32 || (cd == T::F16 && ab == T::F16));
    if !ok {
        return Err(unsupported());
    }
    let list = |i: usize| -> Result<&Vec<Operand>, LoadError> {
        match inst.operands.get(i) {
            Some(Operand::Vector(items)) => Ok(items),
            _ => Err(d.error(inst, "mma operands must be vectors")),
        }
    };
    let srcs = |i: usize| -> Result<Box<[Src]>, LoadError> {
        list(i)?.iter().map(|o| d.src(inst, o, T::B32)).collect()
    };
    Ok(Op::Mma(Box::new(Mma {
        k,
        ab,
        cd,
        d: d.dsts(inst, &Operand::Vector(list(0)?.clone()))?,
        a: srcs(1)?,
        b: srcs(2)?,
        c: srcs(3)?,
    })))
}

pub(super) fn ldmatrix(
    op: &Ldmatrix,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    // Row r of matrix i starts at the address held by lane 8 * i + r.
    let rows: [u64; 32] = std::array::from_fn(|lane| address(w, &op.addr, lane));
    let element =
        |w: &mut Warp, b: &mut Block, lane: usize, matrix: usize, row: usize, col: usize| {
            let a = rows[8 * matrix + row].wrapping_add(2 * col as u64);
            load(w, b, l, locate(op.space, &op.addr, a), 2, lane, a)
        };
    let mut values = [[0u64; 4]; 32];
    for_lanes!(mask, |lane| {
        let count = op.count.min(op.d.len());
        for (i, slot) in values[lane].iter_mut().enumerate().take(count) {
            let (group, pair) = (lane / 4, 2 * (lane % 4));
            *slot = if op.trans {
                element(w, b, lane, i, pair, group)?
                    | element(w, b, lane, i, pair + 1, group)? << 16
            } else {
                element(w, b, lane, i, group, pair)?
                    | element(w, b, lane, i, group, pair + 1)? << 16
            };
        }
    });
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate().take(op.count) {
            w.set(*d, lane, values[lane][i]);
        }
    });
    Ok(Flow::Next)
}

/// The value of one 16-bit or tf32 element.
fn value(ty: T, bits: u64) -> f64 {
    match ty {
        T::F16 => f64::from(half::f16_to_f32(bits as u16)),
        T::Bf16 => f64::from(half::bf16_to_f32(bits as u16)),
        _ => f64::from(f32::from_bits((bits as u32) & 0xffff_e000)),
    }
}

pub(super) fn mma(op: &Mma, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    let (k, wide) = (op.k, op.ab != T::Tf32);
    let mut a = vec![[0f64; 16]; 16];
    let mut bm = vec![[0f64; 8]; 16];
    let mut c = [[0f64; 8]; 16];
    for lane in 0..32usize {
        let (g, t) = (lane / 4, lane % 4);
        let reg =
            |w: &Warp, srcs: &[Src], i: usize| srcs.get(i).map(|s| w.get(*s, lane)).unwrap_or(0);
        if wide {
            // A: element i of the lane's fragment, two per register.
            for i in 0..(k / 2) {
                let bits = reg(w, &op.a, i / 2) >> (16 * (i & 1));
                let row = if (i / 2) % 2 == 0 { g } else { g + 8 };
                let col = 2 * t + (i & 1) + if i >= 4 { 8 } else { 0 };
                a[row][col] = value(op.ab, bits & 0xffff);
            }
            for i in 0..(k / 4) {
                let bits = reg(w, &op.b, i / 2) >> (16 * (i & 1));
                let row = 2 * t + (i & 1) + if i >= 2 { 8 } else { 0 };
                bm[row][g] = value(op.ab, bits & 0xffff);
            }
        } else {
            for i in 0..4 {
                let row = if i % 2 == 0 { g } else { g + 8 };
                let col = if i < 2 { t } else { t + 4 };
                a[row][col] = value(op.ab, reg(w, &op.a, i));
            }
            for i in 0..2 {
                bm[if i == 0 { t } else { t + 4 }][g] = value(op.ab, reg(w, &op.b, i));
            }
        }
        for i in 0..4 {
            let (row, col) = (if i < 2 { g } else { g + 8 }, 2 * t + (i & 1));
            c[row][col] = if op.cd == T::F32 {
                f64::from(f32::from_bits(reg(w, &op.c, i) as u32))
            } else {
                value(T::F16, reg(w, &op.c, i / 2) >> (16 * (i & 1)))
            };
        }
    }
    let mut out = [[0u64; 4]; 32];
    for (lane, slot) in out.iter_mut().enumerate() {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (row, col) = (if i < 2 { g } else { g + 8 }, 2 * t + (i & 1));
            let sum = (0..k).fold(c[row][col], |acc, kk| acc + a[row][kk] * bm[kk][col]);
            if op.cd == T::F32 {
                slot[i] = u64::from((sum as f32).to_bits());
            } else {
                let h = u64::from(half::f32_to_f16(sum as f32, Rounding::Rn, false));
                slot[i / 2] |= h << (16 * (i & 1));
            }
        }
    }
    let count = if op.cd == T::F32 { 4 } else { 2 };
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate().take(count) {
            w.set(*d, lane, out[lane][i]);
        }
    });
    Ok(Flow::Next)
}
