//! Which decoded instructions the compiler handles: anything else keeps a kernel interpreted.

//! Operands (sources, accesses, control, meetings) come from the lowered form's
//! `Op::operands`; the match below decides only what is particular to each kind.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::ir::{Op as IrOp, ScalarType as T};
use chevron_ptx::lowered::{
    AccessKind, Addr, AddrBase, BarrierKind, CallTarget, Collective, Flow, Inst, IntBin, IntTer,
    Meeting, Op, Space, Special, Src, SINK,
};

use crate::device_services::Service;

/// Why `code` (a kernel with its calls inlined) stays interpreted, if it does: the first
/// instruction outside the subset, a volatile or ordered load or store outside global memory
/// (but in a cooperative kernel, or `.volatile` shared accesses that pass values only across
/// barriers: `volatile_shared.rs`), a predicated barrier or exit,
/// or a global atomic a collective may follow. Cheap (one pass, no code generated): the
/// tiering policy asks it before it decides to compile.
pub(crate) fn refusal(code: &FunctionCode) -> Option<String> {
    let known = Known::of(&code.insts, code.num_regs);
    // A cooperative kernel's blocks all run at once and yield at spin loops (`spin.rs`).
    let cooperative = super::spin::cooperative(code);
    let atomics = code.insts.iter().any(|inst| {
        (inst.operands().accesses.iter()).any(|access| access.kind == AccessKind::Atomic)
            || lasting_service(inst)
    });
    let synchronizing = super::spin::synchronizing(code);
    for (pc, inst) in code.insts.iter().enumerate() {
        let constant = |s: &Src| known.value(pc, s);
        if let Some(why) = unsupported(&inst.op, code.param_size, &constant) {
            return Some(format!("{why} (line {})", code.line(pc)));
        }
        let operands = inst.operands();
        if synchronizing.contains(&pc) && !cooperative {
            if let Some(why) = ordered_refusal(&operands, atomics) {
                return Some(format!("{why} (line {})", code.line(pc)));
            }
        }
        let leaves = matches!(operands.flow, Flow::Exit | Flow::Return);
        if operands.guarded && (leaves || operands.meets.is_some()) {
            return Some(format!(
                "a predicated barrier or exit (line {})",
                code.line(pc)
            ));
        }
    }
    if let Some(why) = block_red_refusal(code, cooperative) {
        return Some(why);
    }
    if cooperative && code.insts.iter().any(|i| matches!(&i.op, Op::Call(_))) {
        return Some(
            "a call out of compiled code (`printf`, `malloc`, `free`, an indirect call) in a \
             kernel with a grid barrier"
                .into(),
        );
    }
    if let Some(pc) = atomic_beside_runtime_members(&code.insts, code.num_regs) {
        return Some(format!(
            "a global atomic in a kernel with warp collectives of run-time member masks \
             (line {}): lanes of a warp may take different numbers of them, and a warp parting \
             there would send its block back to the interpreter, which would run the atomic \
             again",
            code.line(pc)
        ));
    }
    if let Some(pc) = atomic_before_collective(&code.insts) {
        return Some(format!(
            "a global atomic a warp collective may follow (line {}): a warp parting there \
             would send its block back to the interpreter, which would run the atomic again",
            code.line(pc)
        ));
    }
    if let Some(pc) = atomic_before(&code.insts, left_to_interpreter) {
        return Some(format!(
            "a global atomic, `malloc` or `free` an indirect call may follow (line {}): an \
             address no function inlined there has sends the block back to the interpreter, \
             which would do it again",
            code.line(pc)
        ));
    }
    None
}

/// Why a volatile or memory-ordered instruction with `operands` keeps a kernel that is not
/// cooperative (and makes atomics if `atomics`) interpreted, if it does. Warp-synchronous code
/// (a reduction's last warp through `volatile` shared memory) relies on a warp's lanes running
/// in lockstep, which only the interpreter does: such loads and stores to shared (or local)
/// memory are refused. Those to global memory (flags between blocks, a decoupled look-back)
/// compile, and the kernel's blocks may wait for each other (`context.rs`: `Waiting`). A generic one
/// compiles too, but one that reaches shared memory at run time sends its block back to the
/// interpreter (`memory.rs`), which runs it again from its start: refused in a kernel with
/// atomics, which that would make twice.
fn ordered_refusal(
    operands: &chevron_ptx::lowered::Operands,
    atomics: bool,
) -> Option<&'static str> {
    let plain = |space: Space| {
        (operands.accesses.iter()).any(|a| a.space == space && a.kind != AccessKind::Atomic)
    };
    if plain(Space::Shared) || plain(Space::Local) || plain(Space::Param) {
        Some("a volatile or memory-ordered load or store outside global memory")
    } else if plain(Space::Generic) && atomics {
        Some("a volatile or memory-ordered generic load or store in a kernel with atomics")
    } else {
        None
    }
}

/// Operands whose values are known while compiling: immediates, registers set once to one at
/// the kernel's top, and registers set once to one earlier in the same straight-line stretch.
struct Known {
    constants: BTreeMap<u32, u64>,
    set_once: BTreeMap<u32, (Range<usize>, u64)>,
}

impl Known {
    fn of(insts: &[Inst], registers: u32) -> Known {
        // Registers set once, at the kernel's top, to an immediate (a member mask, say).
        let constants = super::remat::rematerializable(insts, registers)
            .into_iter()
            .filter_map(|(r, pc)| match insts[pc].op {
                Op::Mov {
                    a: Src::Imm(v),
                    bits,
                    ..
                } => Some((r, v & super::arith::bit_mask(u32::from(bits)))),
                _ => None,
            })
            .collect();
        let set_once = set_once_before(insts, registers);
        Known {
            constants,
            set_once,
        }
    }

    /// The value of `s` where instruction `pc` reads it, if known.
    fn value(&self, pc: usize, s: &Src) -> Option<u64> {
        match s {
            Src::Imm(v) => Some(*v),
            Src::Reg(r) => self.constants.get(r).copied().or_else(|| {
                let (stretch, value) = self.set_once.get(r)?;
                stretch.contains(&pc).then_some(*value)
            }),
            _ => None,
        }
    }
}

/// The warp collectives of `insts` whose member mask is not known to be the whole warp's
/// while compiling (computed at run time, as cooperative groups' tiles and CUB's logical warps
/// do, or partial): each lane offers its mask with its value (`codegen/collective.rs`), and the
/// lanes it meets are the interpreter's `partners` of the warp's masks.
pub(crate) fn runtime_members(insts: &[Inst], registers: u32) -> BTreeSet<usize> {
    let known = Known::of(insts, registers);
    (0..insts.len())
        .filter(|&pc| match &insts[pc].op {
            Op::Warp { mask, .. } => !full(known.value(pc, mask)),
            _ => false,
        })
        .collect()
}

/// Whether a member mask is the whole warp's.
fn full(mask: Option<u64>) -> bool {
    mask.is_some_and(|m| m & 0xffff_ffff == 0xffff_ffff)
}

/// Register → (the instructions that read it as, the immediate), for registers written once (unguarded, by a `mov` of an immediate) and read in the same
/// straight-line stretch after that write: no branch lands between the write and the read, so
/// every path to the read runs the write just before it. nvcc sets a shuffle's full member
/// mask this way, right before the shuffles, after the loop that computes their values.
fn set_once_before(insts: &[Inst], registers: u32) -> BTreeMap<u32, (Range<usize>, u64)> {
    let mut writes = vec![0u32; registers as usize];
    for inst in insts {
        let guarded = if inst.guard.is_some() { 2 } else { 1 };
        for r in inst
            .operands()
            .writes
            .into_iter()
            .filter(|&r| r < registers)
        {
            writes[r as usize] += guarded;
        }
    }
    let mut landing = vec![false; insts.len()];
    for inst in insts {
        if let Flow::Jump(targets) = inst.op.flow() {
            for target in targets {
                if let Some(pc) = landing.get_mut(target as usize) {
                    *pc = true;
                }
            }
        }
    }
    let mut found = BTreeMap::new();
    for (def, inst) in insts.iter().enumerate() {
        let (
            Op::Mov {
                d,
                a: Src::Imm(v),
                bits,
                ..
            },
            None,
        ) = (&inst.op, &inst.guard)
        else {
            continue;
        };
        if writes.get(*d as usize) != Some(&1) {
            continue;
        }
        let end = (def + 1..insts.len())
            .find(|&pc| landing[pc])
            .unwrap_or(insts.len());
        let value = v & super::arith::bit_mask(u32::from(*bits));
        found.insert(*d, (def + 1..end, value));
    }
    found
}

/// The first reason `op` cannot be compiled, if any. `constant` gives the value of an operand
/// known before the kernel runs (an immediate, or a register set once to one at its top).
pub(super) fn unsupported(
    op: &Op,
    param_size: u64,
    constant: &dyn Fn(&Src) -> Option<u64>,
) -> Option<String> {
    let int = |t: T| !t.is_float() && !matches!(t, T::Pred | T::B128 | T::U16x2 | T::S16x2);
    let src_ok = |s: &Src| match s {
        Src::Special(sp) => !matches!(
            sp,
            Special::Clock
                | Special::Clock64
                | Special::Globaltimer
                | Special::GlobaltimerLo
                | Special::GlobaltimerHi
                | Special::Gridid
                | Special::Smid
                | Special::Cluster(_)
        ),
        _ => true,
    };
    let addr_ok = |space: Space, addr: &Addr, bytes: u64| match (space, addr.base) {
        (Space::Local, AddrBase::KernelParam) => false,
        (Space::Local, _) => true,
        // A `.param` variable of a frame (a call's arguments and results) is local memory.
        (Space::Param, AddrBase::Frame) => true,
        // Loads through a parameter's address (stores are refused below).
        (Space::Param, AddrBase::Reg(_)) => true,
        // A frame variable read as another space's address: the interpreter's to report.
        (_, AddrBase::Frame) => false,
        (Space::Param, AddrBase::KernelParam) => {
            addr.offset >= 0 && addr.offset as u64 + bytes <= param_size
        }
        (Space::Param, _) | (_, AddrBase::KernelParam) => false,
        _ => true,
    };
    // Every source operand, whatever the instruction (the lowered form lists them).
    let sources = op.operands().reads.iter().all(src_ok);
    let ok = sources
        && match op {
            Op::Nop | Op::Fence | Op::Nanosleep => true,
            Op::Bra { .. } | Op::Ret | Op::Exit | Op::Trap => true,
            // `vprintf`, `malloc`, `free` (`device_services.rs`), and an indirect call's
            // address that no function inlined there has, left to the interpreter
            // (`inline.rs`); other calls are inlined.
            Op::Call(call) => {
                Service::of(call).is_some() || matches!(call.target, CallTarget::Indirect(_))
            }
            Op::Mov { .. } | Op::Prmt { .. } | Op::Shf { .. } | Op::Bfi { .. } => true,
            // Carries live in a flag register outside the compiled form.
            Op::IntBin { k, t, .. } => int(*t) && !matches!(k, IntBin::Carry { .. }),
            Op::IntTer { k, t, .. } => int(*t) && !matches!(k, IntTer::Madc { .. }),
            Op::Lop3 { lut, .. } => matches!(lut, Src::Imm(_)),
            Op::Pack { part, .. } | Op::Unpack { part, .. } => *part <= 32,
            Op::IntUn { t, .. } => int(*t),
            Op::Selp { .. } | Op::PredLogic { .. } | Op::Float { .. } => true,
            Op::Setp { ty, set_ty, .. } => {
                set_ty.is_none() && !matches!(ty, T::F16x2 | T::Bf16x2 | T::Pred | T::B128)
            }
            Op::Cvt { dst, src, .. } => !matches!(dst, T::B128) && !matches!(src, T::B128),
            Op::Cvta { space, .. } => !matches!(space, Space::Param),
            Op::Ld {
                space, bits, addr, ..
            } => matches!(bits, 8 | 16 | 32 | 64) && addr_ok(*space, addr, u64::from(*bits / 8)),
            Op::St {
                space, bits, addr, ..
            } => {
                matches!(bits, 8 | 16 | 32 | 64)
                    && (*space != Space::Param || addr.base == AddrBase::Frame)
                    && *space != Space::Const
                    && addr_ok(*space, addr, 0)
            }
            Op::Atom {
                space,
                op,
                ty,
                addr,
                ..
            } => {
                matches!(ty.size(), 2 | 4 | 8)
                    && *op != IrOp::Popc
                    && matches!(space, Space::Global | Space::Shared | Space::Generic)
                    && addr_ok(*space, addr, 0)
            }
            // Collectives whose whole warp meets there (else the interpreter runs the block).
            // A mask not known to be the warp's is offered with the value, in its high 32
            // bits: a 64-bit `match` has no room for it.
            Op::Warp { c, mask } => {
                !matches!(c, Collective::Shfl { d: SINK, .. })
                    && (full(constant(mask))
                        || !matches!(
                            c,
                            Collective::MatchAny { bits: 64, .. }
                                | Collective::MatchAll { bits: 64, .. }
                        ))
            }
            // Named barriers and `bar.arrive` go through the block's barrier table
            // (`named_barrier.rs`).
            Op::Bar {
                kind: BarrierKind::Sync | BarrierKind::Arrive,
                d,
                ..
            } => *d == SINK,
            // `__syncthreads_count/and/or` (`block_red.rs`, or the barrier table beside warp
            // collectives; `refusal` checks the kernel).
            Op::Bar {
                kind: BarrierKind::Red(IrOp::Popc | IrOp::And | IrOp::Or),
                ..
            } => true,
            _ => false,
        };
    (!ok).then(|| format!("`{}` is not compiled", op_name(op)))
}

/// A short name of an operation for messages.
pub(crate) fn op_name(op: &Op) -> String {
    let text = format!("{op:?}");
    text.split([' ', '(', '{'])
        .next()
        .unwrap_or("?")
        .to_string()
}

/// Why a cooperative kernel's `bar.red` or named barrier stays interpreted, if one does: the
/// tallies of `bar.red` (`block_red.rs`) count on every thread of a phase arriving at a
/// barrier of the scalar function, and the block's barrier table (`named_barrier.rs`, what a
/// kernel with warp collectives or named barriers uses) on the scalar function's phases,
/// which a cooperative kernel (whose groups run the vector function's barriers) does not
/// give.
fn block_red_refusal(code: &FunctionCode, cooperative: bool) -> Option<String> {
    if !cooperative {
        return None;
    }
    let insts = &code.insts;
    if let Some(pc) = (0..insts.len()).find(|&pc| super::block_red::reduction(insts, pc).is_some())
    {
        return Some(format!(
            "a `bar.red` in a kernel with a grid barrier (line {})",
            code.line(pc)
        ));
    }
    let pc = (0..insts.len()).find(|&pc| {
        matches!(insts[pc].op, Op::Bar { .. }) && super::named_barrier::counted(&insts[pc..=pc])
    })?;
    Some(format!(
        "a named barrier in a kernel with a grid barrier (line {})",
        code.line(pc)
    ))
}

/// A global atomic of a kernel with collectives of run-time member masks, if any: lanes may
/// legally take different numbers of such collectives (a loop over a lane's group), so some
/// may pass the last one and do the atomic while the rest of the warp still waits at one.
fn atomic_beside_runtime_members(insts: &[Inst], registers: u32) -> Option<usize> {
    if runtime_members(insts, registers).is_empty() {
        return None;
    }
    (0..insts.len()).find(|&pc| global_atomic(&insts[pc]))
}

/// Whether `inst` is an atomic on global (or generic) memory, or a `malloc` or `free`: done
/// again if the interpreter runs its block again.
fn global_atomic(inst: &Inst) -> bool {
    lasting_service(inst)
        || inst.operands().accesses.iter().any(|access| {
            access.kind == AccessKind::Atomic
                && matches!(access.space, Space::Global | Space::Generic)
        })
}

/// Whether `inst` calls `malloc` or `free` (`device_services.rs`).
fn lasting_service(inst: &Inst) -> bool {
    matches!(&inst.op, Op::Call(call) if Service::of(call).is_some_and(Service::lasting))
}

/// A global atomic that a warp collective may follow, if any. A warp whose lanes part at a
/// collective (some exited, or at another collective) sends its block back to the
/// interpreter, which runs the block again from its start: an atomic already done would be
/// done twice. (Shared atomics are safe: the second run starts from fresh shared memory.)
fn atomic_before_collective(insts: &[Inst]) -> Option<usize> {
    atomic_before(insts, |inst| inst.operands().meets == Some(Meeting::Warp))
}

/// Whether `inst` is an indirect call's fallback, which sends its block to the interpreter.
fn left_to_interpreter(inst: &Inst) -> bool {
    matches!(&inst.op, Op::Call(call) if matches!(call.target, CallTarget::Indirect(_)))
}

/// A global atomic (or `malloc`, `free`) that an instruction `collective` picks may follow.
fn atomic_before(insts: &[Inst], collective: impl Fn(&Inst) -> bool) -> Option<usize> {
    let n = insts.len();
    let mut reaches_collective = vec![false; n];
    // Backward: an instruction reaches a collective if it is one or a successor reaches one.
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..n).rev() {
            let reaches = collective(&insts[pc])
                || insts[pc]
                    .successors(pc, n)
                    .into_iter()
                    .any(|next| next < n && reaches_collective[next]);
            if reaches && !reaches_collective[pc] {
                reaches_collective[pc] = true;
                changed = true;
            }
        }
    }
    (0..n).find(|&pc| {
        global_atomic(&insts[pc])
            && insts[pc]
                .successors(pc, n)
                .into_iter()
                .any(|next| next < n && reaches_collective[next])
    })
}
