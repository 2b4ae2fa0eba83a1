//! Whether a kernel runs four threads at a time, and how: the width of each register and the
//! instructions where a group of four may have to go on one thread at a time.

use std::collections::BTreeSet;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::ir::{Compare, Op as IrOp, Rounding, ScalarType as T};
use chevron_ptx::lowered::{
    AddrBase, BarrierKind, Collective, FloatOp, Inst, IntBin, IntTer, IntUn, Op, Space, Special,
    Src, SINK,
};

use super::hoist::{hoisted_loops, HoistedLoop};
use super::shapes::{widens, Shape, Shapes};
use crate::liveness::Liveness;

/// How a register's four values are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// At most 32 bits per thread (the upper 32 are zero): one `i32x4` vector.
    W32,
    /// 64 bits per thread: four `i64` values.
    W64,
}

/// The most registers all of a vector function's exits may save together (tiled matmul's 12
/// exits save 163, and its three functions compile in 11 ms).
const SAVE_BUDGET: usize = 1000;

/// How to run a kernel four threads at a time.
pub struct Plan {
    pub widths: Vec<Width>,
    pub shapes: Shapes,
    /// Instructions where a group may leave the vector code: guards that may differ between
    /// the four threads, global and shared accesses (the checks may refuse them), widenings
    /// of a [`Shape::Affine`] value (the four 32-bit values may wrap) and backward branches
    /// (fuel). The scalar code can resume a thread at each.
    pub exits: BTreeSet<usize>,
    /// The registers live at each instruction (what an exit or a barrier saves).
    pub live: Liveness,
    /// Loops whose shared accesses are checked at their entry (`hoist.rs`); their heads are
    /// exits.
    pub loops: Vec<HoistedLoop>,
    /// Exits every group takes: a cooperative kernel's spin loops, its volatile and ordered
    /// accesses and its instructions without a four-wide form run in the scalar code only
    /// (which yields at the spin loops as always); the vector code never runs them.
    pub handed: BTreeSet<usize>,
    /// Instructions whose threads' values come from the interpreter's arithmetic
    /// (`evaluated.rs`): those without a form of the vector code's own.
    pub evaluated: BTreeSet<usize>,
}

/// The plan for `insts` (`registers` registers), or why the kernel stays one thread at a time.
/// `fma`: whether the host has fused multiply-add instructions. `cooperative`: for a kernel
/// whose blocks take turns at spin loops (`codegen/spin.rs`), the instructions a group never
/// runs four-wide (the spin loops, the volatile and ordered accesses); its instructions
/// without a four-wide form are handed to the scalar code too ([`Plan::handed`]).
pub fn plan(
    insts: &[Inst],
    registers: u32,
    fma: bool,
    cooperative: Option<&BTreeSet<usize>>,
) -> Result<Plan, String> {
    if !super::shapes::computable(insts.len(), registers) {
        return Err(format!(
            "{} instructions over {registers} registers: too big to plan",
            insts.len()
        ));
    }
    let mut handed = cooperative.cloned().unwrap_or_default();
    let mut written: Vec<Option<Width>> = vec![None; registers as usize];
    // Collectives of run-time member masks are the scalar code's (but `__syncwarp`: below).
    let runtime_members = crate::codegen::subset::runtime_members(insts, registers);
    let mut evaluated = BTreeSet::new();
    // `mov.pred %p, 0` and `mov.pred %p, -1` (64-bit moves of 0 and all ones, as the
    // interpreter keeps predicates): the width of the register's other writes (`setp`,
    // `or.pred`: 32 bits), so a predicate set both ways is one register; 64 bits alone.
    let mut constants = Vec::new();
    for (pc, inst) in insts.iter().enumerate() {
        if native_width(&inst.op, fma).is_none() && super::evaluated::width(&inst.op).is_some() {
            evaluated.insert(pc);
        }
        let formed = result_width(&inst.op, fma)
            .filter(|_| warp_sync(&inst.op) || !runtime_members.contains(&pc));
        if cooperative.is_some() && formed.is_none() {
            handed.insert(pc);
        }
        let width = match formed {
            // Run by the scalar code alone: what it writes comes back to the vector code
            // only from the threads' slots, whole (64 bits).
            _ if handed.contains(&pc) => Some(formed.flatten().unwrap_or(Width::W64)),
            Some(width) => width,
            None => return Err(format!("`{}` has no four-wide form", op_name(&inst.op))),
        };
        if !handed.contains(&pc) && predicate_constant(&inst.op) {
            constants.push(pc);
            continue;
        }
        for d in inst.operands().writes {
            let Some(slot) = written.get_mut(d as usize) else {
                continue;
            };
            match (*slot, width) {
                (_, None) => return Err(format!("instruction {pc} writes a register")),
                (Some(w), Some(v)) if w != v => {
                    return Err(format!("register {d} is written with two widths"))
                }
                (_, Some(v)) => *slot = Some(v),
            }
        }
    }
    for pc in constants {
        for d in insts[pc].operands().writes {
            if let Some(slot @ None) = written.get_mut(d as usize) {
                *slot = Some(Width::W64);
            }
        }
    }
    let widths: Vec<Width> = written
        .into_iter()
        .map(|w| w.unwrap_or(Width::W32))
        .collect();
    let live = Liveness::of(insts, registers);
    let shapes = Shapes::compute(insts, registers, &live);
    let mut exits = handed.clone();
    for (pc, inst) in insts.iter().enumerate() {
        if handed.contains(&pc) {
            continue;
        }
        let varying_guard = inst
            .guard
            .is_some_and(|(p, _)| shapes.of(pc, &Src::Reg(p)) != Shape::Uniform);
        let backward = matches!(inst.op, Op::Bra { target } if (target as usize) <= pc);
        let affine_widening = widens(&inst.op)
            .iter()
            .any(|a| matches!(shapes.of(pc, a), Shape::Affine(_)));
        if let Op::Warp {
            c: Collective::Shfl { b, c, .. },
            ..
        } = &inst.op
        {
            if [b, c].iter().any(|s| shapes.of(pc, s) != Shape::Uniform) {
                return Err(format!(
                    "instruction {pc}: a shuffle whose lane operands differ between the threads"
                ));
            }
        }
        let memory = match &inst.op {
            Op::Ld {
                addr, bits, space, ..
            }
            | Op::St {
                addr, bits, space, ..
            } if addr.base != AddrBase::KernelParam => {
                let shape = match addr.base {
                    AddrBase::Reg(r) => shapes.of(pc, &Src::Reg(r)),
                    _ => Shape::Uniform,
                };
                // One element for all four, or elements a multiple of the element's size
                // apart (consecutive ones, or a strided gather or scatter; the four never
                // overlap, and the first one's alignment is every one's).
                let element = super::elements::access_bytes(&inst.op) as i64;
                let strided = matches!(shape, Shape::Affine(k) if k % element == 0);
                // Or four unrelated addresses (`scatter.rs`).
                let apart = shape == Shape::Varying && *space != Space::Param;
                if !strided && !apart && shape != Shape::Uniform {
                    return Err(format!(
                        "instruction {pc}: the four threads' addresses are not elements of one stride"
                    ));
                }
                true
            }
            // Its four addresses are checked (`scatter.rs`).
            Op::Atom { .. } => true,
            _ => false,
        };
        if varying_guard || backward || memory || affine_widening {
            exits.insert(pc);
        }
    }
    // Each exit stores the registers live there for four threads: past a budget the vector
    // function would take longer to compile than it is likely to save.
    let saves = |exits: &BTreeSet<usize>| -> usize {
        exits
            .iter()
            .map(|&pc| (0..registers).filter(|&r| live.is_live(pc, r)).count())
            .sum()
    };
    let mut loops = hoisted_loops(insts, &shapes, &widths);
    let mut with_heads = exits.clone();
    with_heads.extend(loops.iter().map(|l| l.head));
    if saves(&with_heads) <= SAVE_BUDGET {
        exits = with_heads;
    } else {
        loops.clear();
    }
    let stores = saves(&exits);
    if stores > SAVE_BUDGET {
        return Err(format!(
            "{} places to leave the vector code, saving {stores} registers in all (more than {SAVE_BUDGET})",
            exits.len()
        ));
    }
    Ok(Plan {
        widths,
        shapes,
        exits,
        live,
        loops,
        handed,
        evaluated,
    })
}

/// `Err` when `code` has a memory-ordered or volatile access other than one 32- or 64-bit
/// element (a `v2`/`v4` look-back descriptor, a flag byte): such a kernel's waits on other
/// blocks stay in the scalar code, as before the group forms of `elements.rs` existed.
pub fn ordered_accesses_one_thread_at_a_time(code: &FunctionCode) -> Result<(), String> {
    let synchronizing = crate::codegen::spin::synchronizing(code);
    match (synchronizing.into_iter()).find(|&pc| !super::elements::plain(&code.insts[pc].op)) {
        Some(pc) => Err(format!(
            "instruction {pc}: a memory-ordered access of several or narrow elements"
        )),
        None => Ok(()),
    }
}

/// What an instruction is, for messages: its kind (`Ld`, `IntBin`, ...) and the details that
/// decide whether it has a four-wide form.
fn op_name(op: &Op) -> String {
    let text = format!("{op:?}");
    text.chars().take(60).collect()
}

/// Whether `cvt.rnd.dst.src` is one of the f32 ↔ 32-bit integer conversions of the four-wide
/// form: int → f32 rounded to nearest, f32 → int truncated (saturating, NaN → 0, as PTX has
/// it and as the host's saturating conversions do).
pub fn float_conversion(dst: T, src: T, rnd: Option<Rounding>) -> bool {
    let int32 = |t: T| matches!(t, T::S32 | T::U32);
    match (dst, src) {
        (T::F32, s) if int32(s) => matches!(rnd, None | Some(Rounding::Rn)),
        (d, T::F32) if int32(d) => matches!(
            rnd,
            None | Some(Rounding::Rzi | Rounding::Rni | Rounding::Rmi | Rounding::Rpi)
        ),
        _ => false,
    }
}

/// Bits of a 32- or 64-bit integer type (None for anything else).
fn int_width(t: T) -> Option<Width> {
    if t.is_float() || matches!(t, T::Pred | T::B128 | T::U16x2 | T::S16x2) {
        return None;
    }
    match t.size() {
        4 => Some(Width::W32),
        8 => Some(Width::W64),
        _ => None,
    }
}

fn src_ok(s: &Src) -> bool {
    match s {
        Src::Reg(_) | Src::Imm(_) => true,
        Src::Special(sp) => matches!(
            sp,
            Special::Tid(_)
                | Special::Laneid
                | Special::Ntid(_)
                | Special::Ctaid(_)
                | Special::Nctaid(_)
                | Special::WorkspaceHi
                | Special::WorkspaceLo
        ),
        _ => false,
    }
}

/// The width of what `op` writes in its four-wide form (`Some(None)`: it writes no
/// register; `None`: it has no such form), on a host with fused multiply-add.
pub(crate) fn written_width(op: &Op) -> Option<Option<Width>> {
    result_width(op, true)
}

/// The width of what `op` writes (`Some(None)`: it writes no register), if it has a four-wide
/// form: its own ([`native_width`]), else each thread's value from the interpreter's
/// arithmetic (`evaluated.rs`).
fn result_width(op: &Op, fma: bool) -> Option<Option<Width>> {
    if !op.operands().reads.iter().all(src_ok) {
        return None;
    }
    native_width(op, fma)
        .or_else(|| super::elements::width(op))
        .or_else(|| super::packing::width(op))
        .or_else(|| super::evaluated::width(op).map(Some))
}

/// The width of what `op` writes (`Some(None)`: it writes no register), if the vector code
/// has an instruction form of its own for it.
pub(super) fn native_width(op: &Op, fma: bool) -> Option<Option<Width>> {
    let bits = |b: u8| match b {
        32 => Some(Width::W32),
        64 => Some(Width::W64),
        _ => None,
    };
    // Every source operand (the lowered form lists them) is one the four-wide code reads.
    if !op.operands().reads.iter().all(src_ok) {
        return None;
    }
    let w = match op {
        Op::Nop => return Some(None),
        Op::Mov { bits: b, .. } => bits(*b)?,
        Op::IntBin { k, t, .. } => {
            let w = int_width(*t)?;
            match k {
                IntBin::Add
                | IntBin::Sub
                | IntBin::MulLo
                | IntBin::And
                | IntBin::Or
                | IntBin::Xor
                | IntBin::Min
                | IntBin::Max => w,
                // By a register: the same in the four threads (checked with the shapes).
                IntBin::Shl | IntBin::Shr => w,
                IntBin::MulWide if w == Width::W32 => Width::W64,
                _ => return None,
            }
        }
        Op::IntUn {
            k: IntUn::Neg | IntUn::Not,
            t,
            ..
        } => int_width(*t)?,
        Op::IntTer { k, t, .. } => {
            let w = int_width(*t)?;
            match k {
                IntTer::MadLo => w,
                IntTer::MadWide if w == Width::W32 => Width::W64,
                _ => return None,
            }
        }
        Op::Setp {
            cmp,
            ty,
            ftz,
            combine: None,
            set_ty: None,
            ..
        } => {
            match ty {
                T::F32 if !*ftz => {}
                _ if matches!(cmp, Compare::Num | Compare::Nan) => return None,
                // 8- and 16-bit integers, compared in the low bits of their lanes (`ops.rs`).
                T::U8 | T::S8 | T::B8 | T::U16 | T::S16 | T::B16 => {}
                _ => {
                    int_width(*ty)?;
                }
            }
            Width::W32
        }
        Op::PredLogic {
            op: IrOp::And | IrOp::Or | IrOp::Xor,
            ..
        } => Width::W32,
        Op::Selp { bits: b, .. } => bits(*b)?,
        Op::Float { op, m, .. }
            if m.ty == T::F32
                && m.rnd == Rounding::Rn
                && !m.ftz
                && !m.sat
                && !m.relu
                && (matches!(
                    op,
                    FloatOp::Add
                        | FloatOp::Sub
                        | FloatOp::Mul
                        | FloatOp::Div
                        | FloatOp::Sqrt
                        | FloatOp::Rcp
                        | FloatOp::Neg
                        | FloatOp::Abs
                ) || (fma && *op == FloatOp::Fma)) =>
        {
            Width::W32
        }
        // min/max take no rounding; `.NaN` (a NaN operand gives NaN) is not in the form.
        Op::Float { op, m, .. }
            if m.ty == T::F32
                && !m.ftz
                && matches!(
                    op,
                    FloatOp::Min { nan: false } | FloatOp::Max { nan: false }
                ) =>
        {
            Width::W32
        }
        // `.sat` of an f32: clamped to [0, 1], NaN to 0.
        Op::Cvt {
            dst: T::F32,
            src: T::F32,
            options,
            ..
        } if options.sat
            && options.rnd.is_none()
            && !options.ftz
            && !options.relu
            && !options.satfinite =>
        {
            Width::W32
        }
        Op::Cvt {
            dst, src, options, ..
        } if !options.sat && !options.ftz && !options.relu && !options.satfinite => {
            if float_conversion(*dst, *src, options.rnd) {
                return Some(Some(Width::W32));
            }
            if options.rnd.is_some() {
                return None;
            }
            let (to, from) = (int_width(*dst)?, int_width(*src)?);
            if to == Width::W32 && from == Width::W64 {
                return None;
            }
            to
        }
        Op::Cvta {
            space: Space::Global,
            bits: 64,
            ..
        } => Width::W64,
        // A signed 32-bit load leaves its value sign-extended to 64 bits in the interpreter's
        // register, which a 32-bit register here would not.
        Op::Ld {
            space,
            bits: 32,
            signed: false,
            ds,
            addr,
        } if ds.len() == 1 && ds[0] != SINK && address_ok(*space, addr.base) => Width::W32,
        Op::Ld {
            space,
            bits: 64,
            ds,
            addr,
            ..
        } if ds.len() == 1 && ds[0] != SINK && address_ok(*space, addr.base) => Width::W64,
        // A kernel parameter of 8 or 16 bits, or a signed one of 32 (a `bool` or `short`
        // argument, CUB's `ping` flag): one scalar load, extended as the interpreter extends
        // it (signed: to 64 bits).
        Op::Ld {
            space: Space::Param,
            bits: 8 | 16 | 32,
            signed,
            ds,
            addr,
        } if ds.len() == 1 && ds[0] != SINK && addr.base == AddrBase::KernelParam => {
            if *signed {
                Width::W64
            } else {
                Width::W32
            }
        }
        Op::St {
            space,
            bits: 32 | 64,
            addr,
            srcs,
        } if srcs.len() == 1 && address_ok(*space, addr.base) && *space != Space::Param => {
            return Some(None)
        }
        Op::Bra { .. } | Op::Ret | Op::Exit => return Some(None),
        // A field at a constant position (`fields.rs`).
        Op::Bfi {
            bits: b,
            c: Src::Imm(_),
            e: Src::Imm(_),
            ..
        } => bits(*b)?,
        // Integer atomics on shared and global memory, one thread after another
        // (`scatter.rs`).
        Op::Atom {
            space: Space::Shared | Space::Global,
            op,
            ty,
            addr,
            ..
        } if crate::codegen::inline_atomic(*op, *ty)
            && matches!(addr.base, AddrBase::Reg(_) | AddrBase::Abs) =>
        {
            int_width(*ty)?
        }
        // A `shfl` of the whole warp (the subset's rule) whose lane and clamp operands are
        // the same in the four threads (checked with the shapes): `vector/shuffle.rs`.
        Op::Warp {
            c: Collective::Shfl { .. },
            ..
        } => Width::W32,
        // `__syncwarp(mask)`, in groups of a whole warp, which run in step (all 32 lanes at
        // every instruction of the vector code, whatever the mask names): no code (`build.rs`
        // keeps a kernel with one out of narrower groups).
        Op::Warp {
            c: Collective::WarpSync,
            ..
        } => return Some(None),
        Op::Bar {
            kind: BarrierKind::Sync,
            id: Src::Imm(0),
            count: None,
            d: SINK,
            ..
        } => return Some(None),
        _ => return None,
    };
    Some(Some(w))
}

/// Whether `op` is `__syncwarp(mask)` (`bar.warp.sync`): no code in groups of a whole warp;
/// a kernel with one has no vector function in narrower groups (`build.rs`).
pub fn warp_sync(op: &Op) -> bool {
    matches!(
        op,
        Op::Warp {
            c: Collective::WarpSync,
            ..
        }
    )
}

/// Whether `op` moves the constant 0 or all ones into a register as 64 bits, as `mov.pred`
/// does: it can take the width of the register's other writes, whose predicates read bit 0.
fn predicate_constant(op: &Op) -> bool {
    matches!(op, Op::Mov { bits: 64, a: Src::Imm(v), .. } if *v == 0 || *v == u64::MAX)
}

/// Whether an access of `space` through `base` has a four-wide form: parameters, and global
/// or shared memory through a register or at an absolute address.
fn address_ok(space: Space, base: AddrBase) -> bool {
    matches!(
        (space, base),
        (Space::Param, AddrBase::KernelParam)
            | (
                Space::Global | Space::Shared,
                AddrBase::Reg(_) | AddrBase::Abs
            )
    )
}

#[cfg(test)]
mod tests {
    use chevron_ptx::lowered::{AddrBase, Op, Space, Src};

    use super::{plan, Shape};

    /// The benchmark's cooperative reduction (`grid_sum` of the tests' `grid_sync.cu`): its
    /// grid-stride loop's 64-bit index is affine in the thread, so the loop's load reads four
    /// consecutive words and no instruction of the loop leaves the vector code but its checked
    /// load and its branches; the grid barrier's atomic and spin are the scalar code's.
    #[test]
    fn a_grid_stride_loop_with_a_64_bit_index_is_four_wide() {
        let program = crate::test_kernels::grid_sync();
        let kernel = program.kernel("grid_sum").unwrap();
        let (code, _) = program.decoded(&kernel).unwrap();
        let only = crate::codegen::spin::scalar_only(code).expect("cooperative");
        let plan = plan(&code.insts, code.num_regs, true, Some(&only)).expect("four-wide");
        let global_load = |pc: usize| match &code.insts[pc].op {
            Op::Ld {
                space: Space::Global,
                addr,
                ..
            } => Some(addr.base),
            _ => None,
        };
        // The loop: the first backward branch.
        let (end, head) = (code.insts.iter().enumerate())
            .find_map(|(pc, inst)| match inst.op {
                Op::Bra { target } if (target as usize) <= pc => Some((pc, target as usize)),
                _ => None,
            })
            .unwrap();
        let load = (head..end).find(|&pc| global_load(pc).is_some()).unwrap();
        let Some(AddrBase::Reg(base)) = global_load(load) else {
            panic!("a load through a register");
        };
        assert_eq!(plan.shapes.of(load, &Src::Reg(base)), Shape::Affine(4));
        assert!((head..=end).all(|pc| !plan.handed.contains(&pc)));
        // The spin loop and the release atomic are handed over.
        let ordered = (0..code.insts.len()).filter(|&pc| crate::codegen::spin::ordered(code, pc));
        assert!(ordered.clone().count() >= 2);
        assert!(ordered.into_iter().all(|pc| plan.handed.contains(&pc)));
    }
}
