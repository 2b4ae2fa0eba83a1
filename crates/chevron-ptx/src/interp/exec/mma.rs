//! `mma.sync` (`.row.col`, N = 8): f16/bf16 m16n8k8 and m16n8k16, tf32 m16n8k4 and m16n8k8,
//! `.s8`/`.u8` m8n8k16, m16n8k16 and m16n8k32 (optionally `.satfinite`), f64 m8n8k4,
//! m16n8k4, m16n8k8 and m16n8k16. Fragments sit across the lanes exactly as the PTX ISA's
//! "Matrix Fragments for mma" sections specify; the arithmetic is `fragment.rs`'s.
//!
//! Every one of those layouts is one rule. With lane = 4·g + t and `per` elements a register,
//! element i of A lies in register r = i / per at row g + 8·(r mod 2) and column
//! per·t + (i mod per) + 4·per·⌊r / 2⌋; element i of B at row per·t + (i mod per) + 4·per·r,
//! column g; element i of C and D at row g + 8·⌊i / 2⌋, column 2·t + (i mod 2).

use super::fragment::{self, Product};
use super::{for_lanes, Flow};
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Op, Src};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Operand, Rounding, ScalarType as T};

/// A decoded `mma.sync`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mma {
    /// M of the mMn8kK shape (8 or 16).
    pub m: usize,
    /// K of the shape.
    pub k: usize,
    /// Element types and rounding.
    pub product: Product,
    pub d: Box<[u32]>,
    pub a: Box<[Src]>,
    pub b: Box<[Src]>,
    pub c: Box<[Src]>,
}

fn words(inst: &ir::Instruction) -> Vec<String> {
    inst.modifiers.iter().map(|m| m.to_word()).collect()
}

/// Whether PTX defines `mma.sync` of shape m`m`n8k`k` for these element types.
fn defined(m: usize, k: usize, p: &Product) -> bool {
    let int8 = |t: T| matches!(t, T::S8 | T::U8);
    match (p.a, p.b) {
        (T::F16, T::F16) => {
            m == 16
                && matches!(k, 8 | 16)
                && matches!(p.c, T::F16 | T::F32)
                && matches!(p.d, T::F16 | T::F32)
        }
        (T::Bf16, T::Bf16) => m == 16 && matches!(k, 8 | 16) && p.c == T::F32 && p.d == T::F32,
        (T::Tf32, T::Tf32) => m == 16 && matches!(k, 4 | 8) && p.c == T::F32 && p.d == T::F32,
        (T::F64, T::F64) => {
            matches!((m, k), (8, 4) | (16, 4) | (16, 8) | (16, 16))
                && p.c == T::F64
                && p.d == T::F64
        }
        (a, b) if int8(a) && int8(b) => {
            matches!((m, k), (8, 16) | (16, 16) | (16, 32)) && p.c == T::S32 && p.d == T::S32
        }
        _ => false,
    }
}

pub(super) fn decode_mma(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let w = words(inst);
    let has = |x: &str| w.iter().any(|y| y == x);
    let unsupported = || {
        d.error(
            inst,
            format!("`mma.{}` is not supported on the CPU device", w.join(".")),
        )
    };
    let (m, n, k) = fragment::shape(&w).ok_or_else(unsupported)?;
    if n != 8 || !has("row") || !has("col") || has("sp") {
        return Err(unsupported());
    }
    let types: Vec<T> = inst.types().collect();
    let [d_ty, a_ty, b_ty, c_ty] = types.as_slice() else {
        return Err(unsupported());
    };
    let product = Product {
        a: *a_ty,
        b: *b_ty,
        c: *c_ty,
        d: *d_ty,
        satfinite: has("satfinite"),
        rounding: Rounding::Rn,
    };
    let integer = matches!(product.a, T::S8 | T::U8);
    if !defined(m, k, &product) || (product.satfinite && !integer) {
        return Err(unsupported());
    }
    let list = |i: usize, ty: T, elements: usize| -> Result<&Vec<Operand>, LoadError> {
        match inst.operands.get(i) {
            Some(Operand::Vector(items)) if items.len() == fragment::regs_for(ty, elements) => {
                Ok(items)
            }
            _ => Err(d.error(
                inst,
                format!(
                    "operand {} of `mma` must be a vector of {} registers",
                    i + 1,
                    fragment::regs_for(ty, elements)
                ),
            )),
        }
    };
    let srcs = |i: usize, ty: T, elements: usize| -> Result<Box<[Src]>, LoadError> {
        let reg = if ty == T::F64 { T::B64 } else { T::B32 };
        list(i, ty, elements)?
            .iter()
            .map(|o| d.src(inst, o, reg))
            .collect()
    };
    let (per_a, per_b, per_c) = (m * k / 32, k * 8 / 32, m * 8 / 32);
    Ok(Op::Mma(Box::new(Mma {
        m,
        k,
        product,
        d: d.dsts(inst, &Operand::Vector(list(0, product.d, per_c)?.clone()))?,
        a: srcs(1, product.a, per_a)?,
        b: srcs(2, product.b, per_b)?,
        c: srcs(3, product.c, per_c)?,
    })))
}

/// (row, column) of A's element `i` in lane `lane` (also `wgmma`'s, within a warp's rows).
pub(super) fn a_at(lane: usize, i: usize, per: usize) -> (usize, usize) {
    let (g, t, r) = (lane / 4, lane % 4, i / per);
    (g + 8 * (r % 2), per * t + i % per + 4 * per * (r / 2))
}

/// (row, column) of B's element `i` in lane `lane`.
fn b_at(lane: usize, i: usize, per: usize) -> (usize, usize) {
    let (g, t, r) = (lane / 4, lane % 4, i / per);
    (per * t + i % per + 4 * per * r, g)
}

/// (row, column) of C's and D's element `i` in lane `lane`.
fn c_at(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

pub(super) fn mma(op: &Mma, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    let (m, n, k, p) = (op.m, 8, op.k, &op.product);
    // A row-major, B column-major (a column is contiguous), C row-major; raw element bits.
    let mut a = vec![0u64; m * k];
    let mut b = vec![0u64; k * n];
    let mut c = vec![0u64; m * n];
    for lane in 0..32 {
        let reg = |srcs: &[Src], i: usize| srcs.get(i).map(|s| w.get(*s, lane)).unwrap_or(0);
        for i in 0..m * k / 32 {
            let (row, col) = a_at(lane, i, fragment::per_reg(p.a));
            a[row * k + col] = fragment::element(|r| reg(&op.a, r), p.a, i);
        }
        for i in 0..k * n / 32 {
            let (row, col) = b_at(lane, i, fragment::per_reg(p.b));
            b[col * k + row] = fragment::element(|r| reg(&op.b, r), p.b, i);
        }
        for i in 0..m * n / 32 {
            let (row, col) = c_at(lane, i);
            c[row * n + col] = fragment::element(|r| reg(&op.c, r), p.c, i);
        }
    }
    let mut out = [[0u64; 4]; 32];
    for (lane, regs) in out.iter_mut().enumerate() {
        for i in 0..m * n / 32 {
            let (row, col) = c_at(lane, i);
            let value = p.dot(
                k,
                |kk| a[row * k + kk],
                |kk| b[col * k + kk],
                c[row * n + col],
            );
            fragment::place(regs, p.d, i, value);
        }
    }
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate() {
            w.set(*d, lane, out[lane][i]);
        }
    });
    Ok(Flow::Next)
}
