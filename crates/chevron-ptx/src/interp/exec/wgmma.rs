//! `wgmma` (sm_90a): the warpgroup matrix multiply-accumulate D = A·B + D of shape m64nNkK,
//! and its ordering instructions.
//!
//! A warpgroup is 4 contiguous warps (128 threads, warps 4g..4g+3 of the block) that execute
//! `wgmma.mma_async.sync.aligned` together. Warp w of the group (w = warp index mod 4) holds rows
//! 16w..16w+15 of D (and of A when A comes from registers), laid out as `mma.sync`'s m16n8
//! fragments side by side along N: element i of a lane 4·g + t sits at row 16w + g + 8·⌊(i mod
//! 4)/2⌋, column 8·⌊i/4⌋ + 2t + (i mod 2); A's element i as `mma.sync`'s A (`mma.rs`). B, and A
//! when not in registers, are read from shared memory through 64-bit matrix descriptors
//! (`wgmma_layout.rs`). Forms: f16 and bf16 (k16, f16 or f32 accumulators; bf16 f32 only, the
//! transposes `imm-trans-a/b` on descriptor operands), tf32 (k8, f32), e4m3/e5m2 (k32, f16 or
//! f32) and s8/u8 (k32, s32, optionally `.satfinite`), N = 8..256 in steps of 8 (of 16 above 32
//! for the integer forms); `scale-d` false drops D, `imm-scale-a/b` -1 negates A or B. The
//! arithmetic is `fragment.rs`'s (exact products summed in f64, rounded once; exact integers).
//!
//! Since a warp's rows of D depend only on its own rows of A and on shared memory, each warp
//! computes its quarter when it reaches the instruction; the other three need not have
//! arrived. The warpgroup must exist whole (a block of fewer threads faults) and all 32 lanes
//! of the warp must execute the instruction (`.aligned`). The multiply runs at `mma_async`, so
//! its result is in D before `wgmma.wait_group`, as the PTX ISA allows (reading D before the
//! wait is undefined). The interpreter runs one warp at a time in program order, so
//! `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group` have nothing to order: they are
//! no-ops.

use super::fragment::{self, Product};
use super::memory_ops::{read_shared, shared_range, window_offset};
use super::mma::a_at;
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{Op, Src};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Immediate, Operand, Rounding, ScalarType as T};

use super::wgmma_layout::{Descriptor, Major};

/// Rows of D a warpgroup computes.
const M: usize = 64;

/// Where A comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Four registers a lane (its fragment).
    Registers(Box<[Src]>),
    /// A matrix descriptor.
    Descriptor(Src),
}

/// A decoded `wgmma.mma_async`.
#[derive(Debug, Clone, PartialEq)]
pub struct Wgmma {
    /// N of the m64nNkK shape.
    pub n: usize,
    /// K of the shape.
    pub k: usize,
    pub product: Product,
    /// D's registers (read as the accumulator, then written).
    pub d: Box<[u32]>,
    pub a: Source,
    /// B's descriptor.
    pub b: Src,
    /// `scale-d`: false computes D = A·B.
    pub scale_d: Src,
    /// `imm-scale-a` / `imm-scale-b` of -1.
    pub negate: [bool; 2],
    /// `imm-trans-a` / `imm-trans-b` of 1: A M-major, B N-major.
    pub transpose: [bool; 2],
}

/// The K of the form whose inputs are `a` and `b` and accumulator `d`, if PTX defines it.
fn k_of(a: T, b: T, d: T) -> Option<usize> {
    let fp8 = |t: T| matches!(t, T::E4m3 | T::E5m2);
    let int8 = |t: T| matches!(t, T::S8 | T::U8);
    match (a, b) {
        (T::F16, T::F16) if matches!(d, T::F16 | T::F32) => Some(16),
        (T::Bf16, T::Bf16) if d == T::F32 => Some(16),
        (T::Tf32, T::Tf32) if d == T::F32 => Some(8),
        (a, b) if fp8(a) && fp8(b) && matches!(d, T::F16 | T::F32) => Some(32),
        (a, b) if int8(a) && int8(b) && d == T::S32 => Some(32),
        _ => None,
    }
}

/// Decodes `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group` and `wgmma.mma_async`.
pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let w: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |x: &str| w.iter().any(|y| y == x);
    let unsupported = |why: &str| {
        d.error(
            inst,
            format!(
                "`wgmma.{}` is not supported on the CPU device{why}",
                w.join(".")
            ),
        )
    };
    if !has("sync") || !has("aligned") {
        return Err(unsupported(" (it must be `.sync.aligned`)"));
    }
    if has("fence") || has("commit_group") {
        return Ok(Op::Nop);
    }
    if has("wait_group") {
        return match inst.operands.as_slice() {
            [Operand::Immediate(Immediate::Int(n))] if *n >= 0 => Ok(Op::Nop),
            _ => Err(d.error(inst, "`wgmma.wait_group` takes one immediate group count")),
        };
    }
    if !has("mma_async") || has("sp") {
        return Err(unsupported(""));
    }
    let (m, n, k) = fragment::shape(&w).ok_or_else(|| unsupported(" (no shape)"))?;
    let types: Vec<T> = inst.types().collect();
    let [d_ty, a_ty, b_ty] = types.as_slice() else {
        return Err(unsupported(""));
    };
    let (d_ty, a_ty, b_ty) = (*d_ty, *a_ty, *b_ty);
    let integer = d_ty == T::S32;
    let n_ok = n % 8 == 0 && (8..=256).contains(&n) && (!integer || n <= 32 || n % 16 == 0);
    if m != M || !n_ok || k_of(a_ty, b_ty, d_ty) != Some(k) || (has("satfinite") && !integer) {
        return Err(unsupported(""));
    }
    let product = Product {
        a: a_ty,
        b: b_ty,
        c: d_ty,
        d: d_ty,
        satfinite: has("satfinite"),
        rounding: Rounding::Rn,
    };
    let operand = |i: usize| {
        inst.operands.get(i).ok_or_else(|| {
            d.error(
                inst,
                format!("`wgmma.mma_async` is missing operand {}", i + 1),
            )
        })
    };
    let immediate = |i: usize, allowed: &[i64]| -> Result<i64, LoadError> {
        match operand(i)? {
            Operand::Immediate(Immediate::Int(v)) if allowed.contains(v) => Ok(*v),
            _ => Err(d.error(
                inst,
                format!(
                    "operand {} of `wgmma.mma_async` must be one of the immediates {allowed:?}",
                    i + 1
                ),
            )),
        }
    };
    let d_regs = fragment::regs_for(d_ty, n * M / 128);
    let dsts = match operand(0)? {
        Operand::Vector(items) if items.len() == d_regs => d.dsts(inst, operand(0)?)?,
        _ => {
            return Err(d.error(
                inst,
                format!("D of `wgmma.mma_async.m64n{n}` must be a vector of {d_regs} registers"),
            ))
        }
    };
    let a = match operand(1)? {
        Operand::Vector(items) if items.len() == 4 => Source::Registers(
            items
                .iter()
                .map(|o| d.src(inst, o, T::B32))
                .collect::<Result<_, _>>()?,
        ),
        Operand::Vector(_) => {
            return Err(d.error(inst, "A of `wgmma.mma_async` in registers is 4 registers"))
        }
        other => Source::Descriptor(d.src(inst, other, T::B64)?),
    };
    let b = d.src(inst, operand(2)?, T::B64)?;
    let scale_d = d.src(inst, operand(3)?, T::Pred)?;
    let halves = matches!(a_ty, T::F16 | T::Bf16);
    let mut negate = [false; 2];
    let mut transpose = [false; 2];
    let mut next = 4;
    if !integer {
        negate = [immediate(4, &[1, -1])? == -1, immediate(5, &[1, -1])? == -1];
        next = 6;
        if halves {
            if matches!(a, Source::Descriptor(_)) {
                transpose[0] = immediate(6, &[0, 1])? == 1;
                next = 7;
            }
            transpose[1] = immediate(next, &[0, 1])? == 1;
            next += 1;
        }
    }
    if inst.operands.len() != next {
        return Err(d.error(
            inst,
            format!(
                "`wgmma.mma_async.{}` takes {next} operands, not {}",
                w.join("."),
                inst.operands.len()
            ),
        ));
    }
    Ok(Op::Wgmma(Box::new(Wgmma {
        n,
        k,
        product,
        d: dsts,
        a,
        b,
        scale_d,
        negate,
        transpose,
    })))
}

/// Faults unless the warp's warpgroup exists whole and every lane of the warp is here.
fn check_warpgroup(w: &Warp, l: &Launch<'_>, mask: u32) -> Result<(), ExecFault> {
    let threads: u32 = l.config.block.iter().product();
    let group = w.index / 4;
    if threads < 128 * (group + 1) {
        return Err(ExecFault::new(
            FaultKind::InvalidLaunch,
            mask.trailing_zeros(),
            format!(
                "`wgmma.mma_async` needs all 4 warps of warpgroup {group} (threads {}..{}), \
                 and the block has {threads} threads",
                128 * group,
                128 * group + 127
            ),
        ));
    }
    if mask != u32::MAX {
        return Err(ExecFault::new(
            FaultKind::Deadlock,
            mask.trailing_zeros(),
            format!(
                "`wgmma.mma_async` is `.sync.aligned`: all 32 lanes of warp {} must execute it \
                 together, and {} did",
                w.index,
                mask.count_ones()
            ),
        ));
    }
    Ok(())
}

/// A value every lane of the warp must give alike (a descriptor, `scale-d`).
fn uniform(w: &Warp, src: Src, what: &str) -> Result<u64, ExecFault> {
    let first = w.get(src, 0);
    match (1..32).find(|&lane| w.get(src, lane) != first) {
        None => Ok(first),
        Some(lane) => Err(ExecFault::new(
            FaultKind::Unsupported,
            lane as u32,
            format!("`wgmma.mma_async`'s {what} differs between lanes 0 and {lane} of the warp"),
        )),
    }
}

/// Reads element (`mn`, `k`) of an operand of type `ty` through `desc`.
fn element_at(
    b: &Block,
    desc: &Descriptor,
    major: Major,
    mn: usize,
    k: usize,
    ty: T,
) -> Result<u64, ExecFault> {
    let bytes = u64::from(fragment::bits(ty) / 8);
    let a = desc.address(major, mn as u64, k as u64, bytes);
    let at = shared_range(b, window_offset(a), bytes, 0, a)?;
    Ok(read_shared(b, at, bytes))
}

/// The sign bit of an element of `ty`.
fn sign_bit(ty: T) -> u64 {
    1 << (fragment::bits(ty) - 1)
}

pub(super) fn execute(
    op: &Wgmma,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    check_warpgroup(w, l, mask)?;
    let (n, k, p) = (op.n, op.k, &op.product);
    let first_row = 16 * (w.index as usize % 4);
    let major = |t: bool| if t { Major::Mn } else { Major::K };
    // This warp's 16 rows of A (row-major) and all of B (column by column), as element bits.
    let mut a = vec![0u64; 16 * k];
    match &op.a {
        Source::Registers(regs) => {
            let per = fragment::per_reg(p.a);
            for lane in 0..32 {
                for i in 0..4 * per {
                    let (row, col) = a_at(lane, i, per);
                    a[row * k + col] = fragment::element(|r| w.get(regs[r], lane), p.a, i);
                }
            }
        }
        Source::Descriptor(src) => {
            let desc = Descriptor::decode(uniform(w, *src, "A descriptor")?);
            for row in 0..16 {
                for kk in 0..k {
                    a[row * k + kk] =
                        element_at(b, &desc, major(op.transpose[0]), first_row + row, kk, p.a)?;
                }
            }
        }
    }
    let desc = Descriptor::decode(uniform(w, op.b, "B descriptor")?);
    let mut bm = vec![0u64; n * k];
    for col in 0..n {
        for kk in 0..k {
            bm[col * k + kk] = element_at(b, &desc, major(op.transpose[1]), col, kk, p.b)?;
        }
    }
    let flip = [
        if op.negate[0] { sign_bit(p.a) } else { 0 },
        if op.negate[1] { sign_bit(p.b) } else { 0 },
    ];
    let accumulate = uniform(w, op.scale_d, "scale-d")? & 1 != 0;
    let mut out = vec![0u64; 32 * op.d.len()];
    for lane in 0..32 {
        let regs = &mut out[lane * op.d.len()..(lane + 1) * op.d.len()];
        for i in 0..n * M / 128 {
            let (row, col) = d_at(lane, i);
            let c = if accumulate {
                fragment::element(|r| w.get(Src::Reg(op.d[r]), lane), p.d, i)
            } else {
                0
            };
            let value = p.dot(
                k,
                |kk| a[row * k + kk] ^ flip[0],
                |kk| bm[col * k + kk] ^ flip[1],
                c,
            );
            fragment::place(regs, p.d, i, value);
        }
    }
    for_lanes!(mask, |lane| {
        for (i, d) in op.d.iter().enumerate() {
            w.set(*d, lane, out[lane * op.d.len() + i]);
        }
    });
    Ok(Flow::Next)
}

/// (row within the warp's 16, column) of D's element `i` in `lane`.
fn d_at(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * ((i % 4) / 2), 8 * (i / 4) + 2 * t + i % 2)
}
