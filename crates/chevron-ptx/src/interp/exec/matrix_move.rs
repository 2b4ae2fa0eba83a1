//! `ldmatrix` (sm_75) and `stmatrix` (sm_90), `.m8n8` `.b16`, `.x1`/`.x2`/`.x4`, optionally
//! `.trans`: one to four 8x8 matrices of 16-bit elements between memory and the warp's
//! registers. Row r of matrix i is at the address lane 8·i + r gives; lane 4·g + t holds, in
//! register i, elements (g, 2t) and (g, 2t + 1) of matrix i (low half first), or with `.trans`
//! elements (2t, g) and (2t + 1, g) of the matrix as memory holds it.

use super::memory_ops::{address, load, locate, store};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, ScalarType as T};

/// A decoded `ldmatrix` or `stmatrix`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixMove {
    /// Matrices moved (1, 2 or 4).
    pub count: usize,
    pub trans: bool,
    pub space: Space,
    pub addr: Addr,
    /// `ldmatrix`'s destinations (empty for `stmatrix`).
    pub d: Box<[u32]>,
    /// `stmatrix`'s values (empty for `ldmatrix`).
    pub values: Box<[Src]>,
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let store = inst.opcode.known() == Some(ir::KnownOpcode::Stmatrix);
    let name = if store { "stmatrix" } else { "ldmatrix" };
    let w: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |x: &str| w.iter().any(|y| y == x);
    if !has("m8n8") || !has("b16") {
        return Err(d.error(
            inst,
            format!(
                "`{name}.{}` is not supported on the CPU device (only .m8n8 .b16)",
                w.join(".")
            ),
        ));
    }
    let count = if has("x4") {
        4
    } else if has("x2") {
        2
    } else {
        1
    };
    let (addr_at, regs_at) = if store { (0, 1) } else { (1, 0) };
    let regs = inst
        .operands
        .get(regs_at)
        .ok_or_else(|| d.error(inst, format!("`{name}` is missing its registers")))?;
    let addr = inst
        .operands
        .get(addr_at)
        .ok_or_else(|| d.error(inst, format!("`{name}` is missing its address")))?;
    let arity = match regs {
        ir::Operand::Vector(items) => items.len(),
        _ => 1,
    };
    if arity != count {
        return Err(d.error(
            inst,
            format!("`{name}` .x{count} takes {count} registers, not {arity}"),
        ));
    }
    let space = space_of(inst);
    let (dsts, values) = if store {
        (Box::default(), d.srcs(inst, regs, T::B32)?)
    } else {
        (d.dsts(inst, regs)?, Box::default())
    };
    Ok(Op::MatrixMove(Box::new(MatrixMove {
        count,
        trans: has("trans"),
        space,
        addr: d.addr(inst, addr, space)?,
        d: dsts,
        values,
    })))
}

/// (row, column) in memory of the two elements of register `i`'s half `h` in `lane`.
fn at(op: &MatrixMove, lane: usize, h: usize) -> (usize, usize) {
    let (g, col) = (lane / 4, 2 * (lane % 4) + h);
    if op.trans {
        (col, g)
    } else {
        (g, col)
    }
}

pub(super) fn execute(
    op: &MatrixMove,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    let rows: [u64; 32] = std::array::from_fn(|lane| address(w, &op.addr, lane));
    let element_at = |matrix: usize, (row, col): (usize, usize)| {
        rows[8 * matrix + row].wrapping_add(2 * col as u64)
    };
    if !op.values.is_empty() {
        for_lanes!(mask, |lane| {
            for (i, v) in op.values.iter().enumerate() {
                let value = w.get(*v, lane);
                for h in 0..2 {
                    let a = element_at(i, at(op, lane, h));
                    let loc = locate(op.space, &op.addr, a);
                    store(w, b, l, loc, 2, lane, a, (value >> (16 * h)) & 0xffff)?;
                }
            }
        });
        return Ok(Flow::Next);
    }
    let mut values = [[0u64; 4]; 32];
    for_lanes!(mask, |lane| {
        for (i, slot) in values[lane].iter_mut().enumerate().take(op.count) {
            for h in 0..2 {
                let a = element_at(i, at(op, lane, h));
                *slot |= load(w, b, l, locate(op.space, &op.addr, a), 2, lane, a)? << (16 * h);
            }
        }
    });
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate() {
            w.set(*d, lane, values[lane][i]);
        }
    });
    Ok(Flow::Next)
}
