//! WMMA (`wmma.load`, `wmma.mma`, `wmma.store`): warp-wide matrix multiply-accumulate on
//! fragments whose layout across lanes PTX leaves unspecified. The CPU device gives lane `l` the
//! elements `l * E/32 .. (l + 1) * E/32` of the matrix in row-major order (E elements in all),
//! packed low bits first as `fragment.rs` packs them (four 8-bit or two 16-bit elements a
//! register); other registers of the fragment stay zero. Loads, stores, fills and element-wise
//! code agree on it, which is all PTX promises.
//!
//! Forms: f16 (m16n16k16, m32n8k16, m8n32k16; f16 or f32 accumulators), bf16 (the same shapes,
//! f32), tf32 m16n16k8 (f32), `.s8`/`.u8` (the same shapes as f16, `.s32` accumulators,
//! optionally `.satfinite`) and f64 m8n8k4 (with its `.rn`/`.rz`/`.rm`/`.rp`). The arithmetic
//! is `fragment.rs`'s: integers and f64 exact as the ISA defines them, the others summed in f64
//! and rounded once (within tolerance of the tensor cores, not bit-identical).

use super::fragment::{self, Product};
use super::memory_ops::{address, load, locate, store};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, Operand, Rounding, ScalarType as T};

/// Which matrix a load or store moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    A,
    B,
    C,
}

/// A decoded `wmma.load` or `wmma.store`.
#[derive(Debug, Clone, PartialEq)]
pub struct WmmaMove {
    pub store: bool,
    pub rows: usize,
    pub cols: usize,
    pub ty: T,
    pub col_major: bool,
    pub space: Space,
    pub addr: Addr,
    pub stride: Option<Src>,
    pub regs: Box<[u32]>,
    pub values: Box<[Src]>,
}

/// A decoded `wmma.mma`.
#[derive(Debug, Clone, PartialEq)]
pub struct WmmaMma {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Element types and rounding.
    pub product: Product,
    pub d: Box<[u32]>,
    pub a: Box<[Src]>,
    pub b: Box<[Src]>,
    pub c: Box<[Src]>,
}

/// Whether PTX defines `wmma.mma` of this shape for these element types.
fn defined((m, n, k): (usize, usize, usize), p: &Product) -> bool {
    let half_shape = matches!((m, n, k), (16, 16, 16) | (32, 8, 16) | (8, 32, 16));
    let int8 = |t: T| matches!(t, T::S8 | T::U8);
    match (p.a, p.b) {
        (T::F16, T::F16) => {
            half_shape && matches!(p.c, T::F16 | T::F32) && matches!(p.d, T::F16 | T::F32)
        }
        (T::Bf16, T::Bf16) => half_shape && p.c == T::F32 && p.d == T::F32,
        (T::Tf32, T::Tf32) => (m, n, k) == (16, 16, 8) && p.c == T::F32 && p.d == T::F32,
        (T::F64, T::F64) => (m, n, k) == (8, 8, 4) && p.c == T::F64 && p.d == T::F64,
        (a, b) if int8(a) && int8(b) => half_shape && p.c == T::S32 && p.d == T::S32,
        _ => false,
    }
}

/// The register type of a fragment of `ty`.
fn reg_type(ty: T) -> T {
    if ty == T::F64 {
        T::B64
    } else {
        T::B32
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let unsupported = || {
        d.error(
            inst,
            format!(
                "`wmma.{}` is not supported on the CPU device",
                words.join(".")
            ),
        )
    };
    let shape = fragment::shape(&words).ok_or_else(unsupported)?;
    let (m, n, k) = shape;
    let types: Vec<T> = inst.types().collect();
    let vector = |i: usize| match inst.operands.get(i) {
        Some(Operand::Vector(items)) => Ok(items.clone()),
        _ => Err(d.error(inst, "wmma operands must be vectors")),
    };
    if has("mma") {
        let (d_ty, a_ty, b_ty, c_ty) = match types.as_slice() {
            [dt, ct] => (*dt, T::F16, T::F16, *ct),
            [dt, at, bt, ct] => (*dt, *at, *bt, *ct),
            _ => return Err(unsupported()),
        };
        let product = Product {
            a: a_ty,
            b: b_ty,
            c: c_ty,
            d: d_ty,
            satfinite: has("satfinite"),
            rounding: inst.rounding().unwrap_or(Rounding::Rn),
        };
        let integer = matches!(a_ty, T::S8 | T::U8);
        let rounded = inst.rounding().is_some_and(|r| r != Rounding::Rn);
        if !defined(shape, &product)
            || (product.satfinite && !integer)
            || (rounded && a_ty != T::F64)
        {
            return Err(unsupported());
        }
        let srcs = |i: usize, ty: T| -> Result<Box<[Src]>, LoadError> {
            vector(i)?
                .iter()
                .map(|o| d.src(inst, o, reg_type(ty)))
                .collect()
        };
        return Ok(Op::WmmaMma(Box::new(WmmaMma {
            m,
            n,
            k,
            product,
            d: d.dsts(inst, &Operand::Vector(vector(0)?))?,
            a: srcs(1, a_ty)?,
            b: srcs(2, b_ty)?,
            c: srcs(3, c_ty)?,
        })));
    }
    let store = has("store");
    let which = if has("a") {
        Which::A
    } else if has("b") {
        Which::B
    } else {
        Which::C
    };
    let ty = *types.last().ok_or_else(unsupported)?;
    let fits = match which {
        Which::A | Which::B => matches!(ty, T::F16 | T::Bf16 | T::Tf32 | T::F64 | T::S8 | T::U8),
        Which::C => matches!(ty, T::F16 | T::F32 | T::F64 | T::S32),
    };
    if !fits || (m * n) % 32 != 0 || (m * k) % 32 != 0 || (n * k) % 32 != 0 {
        return Err(unsupported());
    }
    let (rows, cols) = match which {
        Which::A => (m, k),
        Which::B => (k, n),
        Which::C => (m, n),
    };
    let space = space_of(inst);
    let (addr_at, regs_at) = if store { (0, 1) } else { (1, 0) };
    let addr = d.addr(
        inst,
        inst.operands.get(addr_at).ok_or_else(unsupported)?,
        space,
    )?;
    let stride = match inst.operands.get(2) {
        Some(op) => Some(d.src(inst, op, T::U32)?),
        None => None,
    };
    let list = vector(regs_at)?;
    let needed = fragment::regs_for(ty, rows * cols / 32);
    if list.len() < needed {
        return Err(d.error(
            inst,
            format!(
                "this `wmma` fragment needs {needed} registers, not {}",
                list.len()
            ),
        ));
    }
    let (regs, values) = if store {
        (
            Box::default(),
            list.iter()
                .map(|o| d.src(inst, o, reg_type(ty)))
                .collect::<Result<_, _>>()?,
        )
    } else {
        (d.dsts(inst, &Operand::Vector(list))?, Box::default())
    };
    Ok(Op::WmmaMove(Box::new(WmmaMove {
        store,
        rows,
        cols,
        ty,
        col_major: has("col"),
        space,
        addr,
        stride,
        regs,
        values,
    })))
}

pub(super) fn transfer(
    op: &WmmaMove,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    let size = u64::from(fragment::bits(op.ty) / 8);
    let each = op.rows * op.cols / 32;
    for_lanes!(mask, |lane| {
        let base = address(w, &op.addr, lane);
        let ld = op
            .stride
            .map(|s| w.get(s, lane) as usize)
            .unwrap_or(if op.col_major { op.rows } else { op.cols });
        let mut words = [0u64; 16];
        if op.store {
            for (i, v) in op.values.iter().enumerate().take(16) {
                words[i] = w.get(*v, lane);
            }
        }
        let mut loaded = [0u64; 16];
        for e in 0..each {
            let index = lane * each + e;
            let (row, col) = (index / op.cols, index % op.cols);
            let offset = if op.col_major {
                col * ld + row
            } else {
                row * ld + col
            };
            let a = base.wrapping_add(offset as u64 * size);
            let loc = locate(op.space, &op.addr, a);
            if op.store {
                let v = fragment::element(|r| words[r], op.ty, e);
                store(w, b, l, loc, size, lane, a, v)?;
            } else {
                let v = load(w, b, l, loc, size, lane, a)?;
                fragment::place(&mut loaded, op.ty, e, v);
            }
        }
        if !op.store {
            for (i, d) in op.regs.iter().enumerate() {
                w.set(*d, lane, loaded.get(i).copied().unwrap_or(0));
            }
        }
    });
    Ok(Flow::Next)
}

/// A whole `rows` x `cols` matrix (raw element bits, row-major) from the warp's fragments.
fn gather(w: &Warp, srcs: &[Src], ty: T, rows: usize, cols: usize) -> Vec<u64> {
    let each = rows * cols / 32;
    let mut out = vec![0u64; rows * cols];
    for lane in 0..32 {
        let reg = |r: usize| srcs.get(r).map(|s| w.get(*s, lane)).unwrap_or(0);
        for e in 0..each {
            out[lane * each + e] = fragment::element(reg, ty, e);
        }
    }
    out
}

pub(super) fn mma(op: &WmmaMma, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    let p = &op.product;
    let a = gather(w, &op.a, p.a, op.m, op.k);
    let b = gather(w, &op.b, p.b, op.k, op.n);
    let c = gather(w, &op.c, p.c, op.m, op.n);
    let each = op.m * op.n / 32;
    let mut out = vec![[0u64; 8]; 32];
    for (lane, regs) in out.iter_mut().enumerate() {
        for e in 0..each {
            let index = lane * each + e;
            let (row, col) = (index / op.n, index % op.n);
            let value = p.dot(
                op.k,
                |kk| a[row * op.k + kk],
                |kk| b[kk * op.n + col],
                c[index],
            );
            fragment::place(regs, p.d, e, value);
        }
    }
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate() {
            w.set(*d, lane, out[lane].get(i).copied().unwrap_or(0));
        }
    });
    Ok(Flow::Next)
}
