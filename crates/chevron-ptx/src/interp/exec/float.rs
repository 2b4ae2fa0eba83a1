//! Floating-point instructions on `.f32`, `.f64`, `.f16`, `.bf16` and their packed pairs: `add`,
//! `sub`, `mul`, `fma`/`mad`, `div`, `min`/`max`, `neg`, `abs`, `copysign`, `sqrt`, `rcp`,
//! `rsqrt`, and the approximate `sin`, `cos`, `lg2`, `ex2`, `tanh`. Rounding modes, `.ftz`,
//! `.sat` and `.relu` are applied here around the exact arithmetic of [`numeric`].
//!
//! [`numeric`]: crate::interp::numeric

use super::lanes::{map2, map3};
use super::Flow;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{FloatMods, FloatOp, Op, Src};
use crate::interp::numeric::{approx, float as nf, half as nh};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Flag, KnownOpcode as K, Modifier, Rounding, ScalarType as T};

/// Whether the float family decodes `op` (for a float type).
pub(super) fn handles(op: K) -> bool {
    matches!(
        op,
        K::Add
            | K::Sub
            | K::Mul
            | K::Div
            | K::Fma
            | K::Mad
            | K::Min
            | K::Max
            | K::Neg
            | K::Abs
            | K::Sqrt
            | K::Rsqrt
            | K::Rcp
            | K::Sin
            | K::Cos
            | K::Lg2
            | K::Ex2
            | K::Tanh
            | K::Copysign
    )
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let ty = inst.ty().ok_or_else(|| d.error(inst, "missing type"))?;
    let approx = inst.has(Flag::Approx);
    let nan = inst
        .modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Other(w) if w == "NaN"));
    if inst
        .modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Other(w) if w == "oob"))
    {
        return Err(d.error(inst, "this form is not supported on the CPU device"));
    }
    let xorsign = inst
        .modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Other(w) if w == "xorsign"));
    if xorsign && ty != T::F32 {
        return Err(d.error(
            inst,
            "xorsign.abs on halves is not supported on the CPU device",
        ));
    }
    let m = FloatMods {
        ty,
        rnd: inst.rounding().unwrap_or(Rounding::Rn),
        ftz: inst.has(Flag::Ftz),
        sat: inst.has(Flag::Sat),
        relu: inst.has(Flag::Relu),
    };
    let f = match op {
        K::Add => FloatOp::Add,
        K::Sub => FloatOp::Sub,
        K::Mul => FloatOp::Mul,
        K::Fma | K::Mad => FloatOp::Fma,
        K::Div if approx => FloatOp::DivApprox,
        K::Div if inst.has(Flag::Full) => FloatOp::DivFull,
        K::Div => FloatOp::Div,
        K::Min if xorsign => FloatOp::XorsignAbs { max: false, nan },
        K::Max if xorsign => FloatOp::XorsignAbs { max: true, nan },
        K::Min => FloatOp::Min { nan },
        K::Max => FloatOp::Max { nan },
        K::Neg => FloatOp::Neg,
        K::Abs => FloatOp::Abs,
        K::Copysign => FloatOp::Copysign,
        K::Sqrt if approx => FloatOp::SqrtApprox,
        K::Sqrt => FloatOp::Sqrt,
        K::Rsqrt => FloatOp::Rsqrt,
        K::Rcp if approx && ty == T::F64 => FloatOp::RcpApproxFtzF64,
        K::Rcp if approx => FloatOp::RcpApprox,
        K::Rcp => FloatOp::Rcp,
        K::Sin => FloatOp::Sin,
        K::Cos => FloatOp::Cos,
        K::Lg2 => FloatOp::Lg2,
        K::Ex2 => FloatOp::Ex2,
        K::Tanh => FloatOp::Tanh,
        _ => return Err(d.error(inst, "not a float instruction")),
    };
    let supported = match ty {
        T::F32 => true,
        T::F64 => !matches!(
            f,
            FloatOp::Sin
                | FloatOp::Cos
                | FloatOp::Lg2
                | FloatOp::Ex2
                | FloatOp::Tanh
                | FloatOp::DivApprox
                | FloatOp::DivFull
                | FloatOp::SqrtApprox
                | FloatOp::RcpApprox
        ),
        T::F16 | T::Bf16 | T::F16x2 | T::Bf16x2 => matches!(
            f,
            FloatOp::Add
                | FloatOp::Sub
                | FloatOp::Mul
                | FloatOp::Fma
                | FloatOp::Min { .. }
                | FloatOp::Max { .. }
                | FloatOp::Neg
                | FloatOp::Abs
                | FloatOp::Ex2
                | FloatOp::Tanh
        ),
        _ => false,
    };
    if !supported {
        return Err(d.error(
            inst,
            format!(
                "`{}.{}` is not supported on the CPU device",
                op.as_str(),
                ty.as_str()
            ),
        ));
    }
    let unary = matches!(
        f,
        FloatOp::Neg
            | FloatOp::Abs
            | FloatOp::Sqrt
            | FloatOp::SqrtApprox
            | FloatOp::Rsqrt
            | FloatOp::Rcp
            | FloatOp::RcpApprox
            | FloatOp::RcpApproxFtzF64
            | FloatOp::Sin
            | FloatOp::Cos
            | FloatOp::Lg2
            | FloatOp::Ex2
            | FloatOp::Tanh
    );
    let a = d.src_at(inst, 1, ty)?;
    let b = if unary {
        Src::Imm(0)
    } else {
        d.src_at(inst, 2, ty)?
    };
    let c = if f == FloatOp::Fma {
        d.src_at(inst, 3, ty)?
    } else {
        Src::Imm(0)
    };
    Ok(Op::Float {
        op: f,
        m,
        d: d.dst_at(inst, 0)?,
        a,
        b,
        c,
    })
}

pub(super) fn execute(op: &Op, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    let Op::Float { op, m, d, a, b, c } = *op else {
        return Ok(Flow::Next);
    };
    let plain = m.rnd == Rounding::Rn && !m.ftz && !m.sat && !m.relu;
    let f32s = |x: u64| f32::from_bits(x as u32);
    let bits = |r: f32| u64::from(r.to_bits());
    match (m.ty, op) {
        // The common forms, with the operation chosen outside the lane loop.
        (T::F32, FloatOp::Add) if plain => map2(w, mask, d, a, b, |x, y| {
            bits(nf::add_f32(f32s(x), f32s(y), Rounding::Rn))
        }),
        (T::F32, FloatOp::Sub) if plain => map2(w, mask, d, a, b, |x, y| {
            bits(nf::sub_f32(f32s(x), f32s(y), Rounding::Rn))
        }),
        (T::F32, FloatOp::Mul) if plain => map2(w, mask, d, a, b, |x, y| {
            bits(nf::mul_f32(f32s(x), f32s(y), Rounding::Rn))
        }),
        (T::F32, FloatOp::Fma) if plain => map3(w, mask, d, a, b, c, |x, y, z| {
            bits(nf::fma_f32(f32s(x), f32s(y), f32s(z), Rounding::Rn))
        }),
        _ => map3(w, mask, d, a, b, c, |x, y, z| evaluate(op, m, x, y, z)),
    }
    Ok(Flow::Next)
}

/// One lane's result of a float instruction from its operands' bits (any type, rounding and
/// modifier), as the interpreter computes it.
#[inline(always)]
pub fn evaluate(op: FloatOp, m: FloatMods, x: u64, y: u64, z: u64) -> u64 {
    let f32s = |x: u64| f32::from_bits(x as u32);
    match m.ty {
        T::F32 => u64::from(f32_op(op, m, f32s(x), f32s(y), f32s(z)).to_bits()),
        T::F64 => f64_op(
            op,
            m,
            f64::from_bits(x),
            f64::from_bits(y),
            f64::from_bits(z),
        )
        .to_bits(),
        _ => half_op(op, m, x, y, z),
    }
}

#[inline(always)]
fn f32_op(op: FloatOp, m: FloatMods, a: f32, b: f32, c: f32) -> f32 {
    let ftz = m.ftz;
    let fz = |x: f32| if ftz { nf::flush_f32(x) } else { x };
    let (a, b, c) = (fz(a), fz(b), fz(c));
    let r = match op {
        FloatOp::Add => nf::add_f32(a, b, m.rnd),
        FloatOp::Sub => nf::sub_f32(a, b, m.rnd),
        FloatOp::Mul if ftz => nf::mul_ftz_f32(a, b, m.rnd),
        FloatOp::Mul => nf::mul_f32(a, b, m.rnd),
        FloatOp::Fma => nf::fma_f32(a, b, c, m.rnd),
        FloatOp::Div => nf::div_f32(a, b, m.rnd),
        FloatOp::DivApprox => approx::div_approx_f32(a, b),
        FloatOp::DivFull => approx::div_full_f32(a, b),
        FloatOp::Min { nan } => nf::min_f32(a, b, nan),
        FloatOp::Max { nan } => nf::max_f32(a, b, nan),
        FloatOp::XorsignAbs { max, nan } => nf::minmax_xorsign_abs_f32(a, b, max, nan),
        FloatOp::Neg => nf::neg_f32(a),
        FloatOp::Abs => nf::abs_f32(a),
        FloatOp::Copysign => nf::copysign_f32(a, b),
        FloatOp::Sqrt => nf::sqrt_f32(a, m.rnd),
        FloatOp::SqrtApprox => approx::sqrt_approx_f32(a),
        FloatOp::Rsqrt => approx::rsqrt_approx_f32(a),
        FloatOp::Rcp => nf::rcp_f32(a, m.rnd),
        FloatOp::RcpApprox | FloatOp::RcpApproxFtzF64 => approx::rcp_approx_f32(a),
        FloatOp::Sin => approx::sin_approx_f32(a),
        FloatOp::Cos => approx::cos_approx_f32(a),
        FloatOp::Lg2 => approx::lg2_approx_f32(a),
        FloatOp::Ex2 => approx::ex2_approx_f32(a),
        FloatOp::Tanh => approx::tanh_approx_f32(a),
    };
    let r = fz(r);
    let r = if m.relu && !r.is_nan() && r < 0.0 {
        0.0
    } else {
        r
    };
    if m.sat {
        nf::saturate_f32(r)
    } else {
        r
    }
}

#[inline(always)]
fn f64_op(op: FloatOp, m: FloatMods, a: f64, b: f64, c: f64) -> f64 {
    let r = match op {
        FloatOp::Add => nf::add_f64(a, b, m.rnd),
        FloatOp::Sub => nf::sub_f64(a, b, m.rnd),
        FloatOp::Mul => nf::mul_f64(a, b, m.rnd),
        FloatOp::Fma => nf::fma_f64(a, b, c, m.rnd),
        FloatOp::Div | FloatOp::DivApprox | FloatOp::DivFull => nf::div_f64(a, b, m.rnd),
        FloatOp::Min { nan } => nf::min_f64(a, b, nan),
        FloatOp::Max { nan } | FloatOp::XorsignAbs { nan, .. } => nf::max_f64(a, b, nan),
        FloatOp::Neg => nf::neg_f64(a),
        FloatOp::Abs => nf::abs_f64(a),
        FloatOp::Copysign => nf::copysign_f64(a, b),
        FloatOp::Sqrt | FloatOp::SqrtApprox => nf::sqrt_f64(a, m.rnd),
        FloatOp::Rsqrt if m.ftz => approx::rsqrt_approx_ftz_f64(a),
        FloatOp::Rsqrt => approx::rsqrt_approx_f64(a),
        FloatOp::Rcp | FloatOp::RcpApprox => nf::rcp_f64(a, m.rnd),
        FloatOp::RcpApproxFtzF64 => approx::rcp_approx_ftz_f64(a),
        FloatOp::Sin | FloatOp::Cos | FloatOp::Lg2 | FloatOp::Ex2 | FloatOp::Tanh => f64::NAN,
    };
    if m.sat {
        nf::saturate_f64(r)
    } else {
        r
    }
}

/// Applies a 16-bit function to both halves of a pair.
fn pair(x: u32, f: fn(u16) -> u16) -> u32 {
    u32::from(f(x as u16)) | u32::from(f((x >> 16) as u16)) << 16
}

fn half_op(op: FloatOp, m: FloatMods, a: u64, b: u64, c: u64) -> u64 {
    let (rnd, ftz, sat) = (m.rnd, m.ftz, m.sat);
    let (h, g, k) = (a as u16, b as u16, c as u16);
    let (x, y, z) = (a as u32, b as u32, c as u32);
    let inf: u16 = if matches!(m.ty, T::F16 | T::F16x2) {
        0x7c00
    } else {
        0x7f80
    };
    let relu16 = |v: u16| {
        if m.relu && v & 0x8000 != 0 && (v & 0x7fff) <= inf {
            0
        } else {
            v
        }
    };
    let relu32 = |v: u32| u32::from(relu16(v as u16)) | u32::from(relu16((v >> 16) as u16)) << 16;
    match m.ty {
        T::F16 => u64::from(relu16(match op {
            FloatOp::Add => nh::add_f16(h, g, rnd, ftz, sat),
            FloatOp::Sub => nh::sub_f16(h, g, rnd, ftz, sat),
            FloatOp::Mul => nh::mul_f16(h, g, rnd, ftz, sat),
            FloatOp::Fma => nh::fma_f16(h, g, k, rnd, ftz, sat),
            FloatOp::Min { nan } => nh::min_f16(h, g, nan),
            FloatOp::Max { nan } => nh::max_f16(h, g, nan),
            FloatOp::Neg => nh::neg_f16(h),
            FloatOp::Ex2 => approx::ex2_approx_f16(h),
            FloatOp::Tanh => approx::tanh_approx_f16(h),
            _ => nh::abs_f16(h),
        })),
        T::Bf16 => u64::from(relu16(match op {
            FloatOp::Add => nh::add_bf16(h, g, rnd, ftz, sat),
            FloatOp::Sub => nh::sub_bf16(h, g, rnd, ftz, sat),
            FloatOp::Mul => nh::mul_bf16(h, g, rnd, ftz, sat),
            FloatOp::Fma => nh::fma_bf16(h, g, k, rnd, ftz, sat),
            FloatOp::Min { nan } => nh::min_bf16(h, g, nan),
            FloatOp::Max { nan } => nh::max_bf16(h, g, nan),
            FloatOp::Neg => nh::neg_bf16(h),
            FloatOp::Ex2 => approx::ex2_approx_ftz_bf16(h),
            FloatOp::Tanh => approx::tanh_approx_bf16(h),
            _ => nh::abs_bf16(h),
        })),
        T::F16x2 => u64::from(relu32(match op {
            FloatOp::Add => nh::add_f16x2(x, y, rnd, ftz, sat),
            FloatOp::Sub => nh::sub_f16x2(x, y, rnd, ftz, sat),
            FloatOp::Mul => nh::mul_f16x2(x, y, rnd, ftz, sat),
            FloatOp::Fma => nh::fma_f16x2(x, y, z, rnd, ftz, sat),
            FloatOp::Min { nan } => nh::min_f16x2(x, y, nan),
            FloatOp::Max { nan } => nh::max_f16x2(x, y, nan),
            FloatOp::Neg => nh::neg_f16x2(x),
            FloatOp::Ex2 => pair(x, approx::ex2_approx_f16),
            FloatOp::Tanh => pair(x, approx::tanh_approx_f16),
            _ => nh::abs_f16x2(x),
        })),
        _ => u64::from(relu32(match op {
            FloatOp::Add => nh::add_bf16x2(x, y, rnd, ftz, sat),
            FloatOp::Sub => nh::sub_bf16x2(x, y, rnd, ftz, sat),
            FloatOp::Mul => nh::mul_bf16x2(x, y, rnd, ftz, sat),
            FloatOp::Fma => nh::fma_bf16x2(x, y, z, rnd, ftz, sat),
            FloatOp::Min { nan } => nh::min_bf16x2(x, y, nan),
            FloatOp::Max { nan } => nh::max_bf16x2(x, y, nan),
            FloatOp::Neg => nh::neg_bf16x2(x),
            FloatOp::Ex2 => pair(x, approx::ex2_approx_ftz_bf16),
            FloatOp::Tanh => pair(x, approx::tanh_approx_bf16),
            _ => nh::abs_bf16x2(x),
        })),
    }
}
