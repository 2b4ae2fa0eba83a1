//! WMMA (`wmma.load`, `wmma.mma`, `wmma.store`): warp-wide matrix multiply-accumulate on
//! fragments whose layout across lanes PTX leaves unspecified. The CPU device gives lane `l` the
//! elements `l * E/32 .. (l + 1) * E/32` of the matrix in row-major order (E elements in all),
//! packed two per register for 16-bit types; other registers of the fragment stay zero. Loads,
//! stores, fills and element-wise code agree on it, which is all PTX promises. Products are
//! summed in f64 and rounded once (within tolerance of the tensor cores, not bit-identical).

use super::memory_ops::{address, load, locate, store};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src, SINK};
use crate::interp::numeric::half;
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
    pub ab: T,
    pub c_ty: T,
    pub d_ty: T,
    pub d: Box<[u32]>,
    pub a: Box<[Src]>,
    pub b: Box<[Src]>,
    pub c: Box<[Src]>,
}

fn shape(words: &[String]) -> Option<(usize, usize, usize)> {
    words.iter().find_map(|w| {
        let rest = w.strip_prefix('m')?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
    })
}

/// Elements per register: two for 16-bit types.
fn per_reg(ty: T) -> usize {
    if matches!(ty, T::F16 | T::Bf16) {
        2
    } else {
        1
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let unsupported = || d.error(inst, "this `wmma` form is not supported on the CPU device");
    let (m, n, k) = shape(&words).ok_or_else(unsupported)?;
    let types: Vec<T> = inst.types().collect();
    let vector = |i: usize| match inst.operands.get(i) {
        Some(Operand::Vector(items)) => Ok(items.clone()),
        _ => Err(d.error(inst, "wmma operands must be vectors")),
    };
    if has("mma") {
        let (d_ty, ab, c_ty) = match types.as_slice() {
            [dt, ct] => (*dt, T::F16, *ct),
            [dt, at, bt, ct] if at == bt => (*dt, *at, *ct),
            _ => return Err(unsupported()),
        };
        if !matches!(ab, T::F16 | T::Bf16 | T::Tf32) || !matches!(c_ty, T::F16 | T::F32) {
            return Err(unsupported());
        }
        let srcs = |i: usize| -> Result<Box<[Src]>, LoadError> {
            vector(i)?.iter().map(|o| d.src(inst, o, T::B32)).collect()
        };
        return Ok(Op::WmmaMma(Box::new(WmmaMma {
            m,
            n,
            k,
            ab,
            c_ty,
            d_ty,
            d: d.dsts(inst, &Operand::Vector(vector(0)?))?,
            a: srcs(1)?,
            b: srcs(2)?,
            c: srcs(3)?,
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
    if !matches!(ty, T::F16 | T::Bf16 | T::Tf32 | T::F32) {
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
    let (regs, values) = if store {
        (
            Box::default(),
            list.iter()
                .map(|o| d.src(inst, o, T::B32))
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

/// Where element `e` of lane `lane` sits: (register, bit shift), for `per` elements a register.
fn slot(e: usize, per: usize) -> (usize, u32) {
    (e / per, if per == 2 { 16 * (e % 2) as u32 } else { 0 })
}

pub(super) fn transfer(
    op: &WmmaMove,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    let size = if op.ty == T::F16 || op.ty == T::Bf16 {
        2
    } else {
        4
    };
    let per = per_reg(op.ty);
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
        for e in 0..each {
            let index = lane * each + e;
            let (row, col) = (index / op.cols, index % op.cols);
            let offset = if op.col_major {
                col * ld + row
            } else {
                row * ld + col
            };
            let a = base.wrapping_add((offset * size) as u64);
            let (reg, shift) = slot(e, per);
            let loc = locate(op.space, &op.addr, a);
            if op.store {
                let v = (words[reg] >> shift) & if size == 2 { 0xffff } else { 0xffff_ffff };
                store(w, b, l, loc, size as u64, lane, a, v)?;
            } else {
                words[reg] |= load(w, b, l, loc, size as u64, lane, a)? << shift;
            }
        }
        if !op.store {
            for (i, d) in op.regs.iter().enumerate() {
                w.set(*d, lane, words.get(i).copied().unwrap_or(0));
            }
        }
    });
    Ok(Flow::Next)
}

fn element(ty: T, bits: u64) -> f64 {
    match ty {
        T::F16 => f64::from(half::f16_to_f32(bits as u16)),
        T::Bf16 => f64::from(half::bf16_to_f32(bits as u16)),
        T::Tf32 => f64::from(f32::from_bits((bits as u32) & 0xffff_e000)),
        _ => f64::from(f32::from_bits(bits as u32)),
    }
}

/// Reads a whole `rows` x `cols` matrix from the warp's fragments.
fn gather(w: &Warp, srcs: &[Src], ty: T, rows: usize, cols: usize) -> Vec<f64> {
    let per = per_reg(ty);
    let each = rows * cols / 32;
    let mut out = vec![0f64; rows * cols];
    for lane in 0..32 {
        for e in 0..each {
            let (reg, shift) = slot(e, per);
            let bits = srcs.get(reg).map(|s| w.get(*s, lane) >> shift).unwrap_or(0);
            out[lane * each + e] = element(ty, bits & if per == 2 { 0xffff } else { 0xffff_ffff });
        }
    }
    out
}

pub(super) fn mma(op: &WmmaMma, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    let a = gather(w, &op.a, op.ab, op.m, op.k);
    let b = gather(w, &op.b, op.ab, op.k, op.n);
    let c = gather(w, &op.c, op.c_ty, op.m, op.n);
    let per = per_reg(op.d_ty);
    let each = op.m * op.n / 32;
    let mut out = vec![[0u64; 8]; 32];
    for (lane, regs) in out.iter_mut().enumerate() {
        for e in 0..each {
            let index = lane * each + e;
            let (row, col) = (index / op.n, index % op.n);
            let sum = (0..op.k).fold(c[index], |acc, kk| {
                acc + a[row * op.k + kk] * b[kk * op.n + col]
            });
            let bits = if op.d_ty == T::F16 {
                u64::from(half::f32_to_f16(sum as f32, Rounding::Rn, false))
            } else {
                u64::from((sum as f32).to_bits())
            };
            let (reg, shift) = slot(e, per);
            if reg < 8 {
                regs[reg] |= bits << shift;
            }
        }
    }
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate() {
            if *d != SINK {
                w.set(*d, lane, out[lane].get(i).copied().unwrap_or(0));
            }
        }
    });
    Ok(Flow::Next)
}
