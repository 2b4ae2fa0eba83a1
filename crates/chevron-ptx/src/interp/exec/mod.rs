//! Executing decoded instructions, family by family, and the warp's run loop.
//!
//! Each family module decodes its opcodes from the IR ([`decode`]) and executes them for the
//! lanes of a mask ([`execute`]); [`run_warp`] steps a warp's current group through its function
//! and handles divergence and reconvergence.

mod assert;
mod atomics;
mod barrier;
pub(crate) mod bulk_copy;
pub(crate) mod bulk_tensor;
mod calls;
mod compare;
mod control;
mod convert;
mod device_calls;
mod float;
pub(crate) mod fragment;
mod int;
mod lanes;
pub(crate) mod matrix_move;
pub(crate) mod mbarrier;
mod memory_ops;
pub(crate) mod mma;
pub(crate) mod texture_ops;
mod warp_ops;
pub(crate) mod wgmma;
pub(crate) mod wgmma_layout;
pub(crate) mod wmma;

pub use atomics::apply as evaluate_atomic;
pub use compare::compare as evaluate_compare;
pub use float::evaluate as evaluate_float;
pub use int::evaluate as evaluate_int;
pub use int::unary as evaluate_int_unary;
pub use warp_ops::{collective_offer, collective_result, partners, shuffle_source};

use super::block::Block;
use super::fault::{ExecFault, LoadError};
use super::grid::{LaunchConfig, LaunchHooks};
use super::inst::Op;
use super::memory::DeviceMemory;
use super::program::{Decoder, FunctionCode, Program};
use super::warp::Warp;
use crate::ir::{self, KnownOpcode as K};

pub use assert::KEPT_ASSERTIONS;
pub(crate) use memory_ops::{address, load as load_at, locate, resolve_generic, Loc};

/// Everything a running block needs to know about its launch.
pub(crate) struct Launch<'a> {
    pub program: &'a Program,
    pub kernel: &'a FunctionCode,
    pub kernel_index: u32,
    pub memory: &'a DeviceMemory,
    pub params: &'a [u8],
    pub config: &'a LaunchConfig,
    pub gridid: u64,
    /// Grid-synchronisation workspace of a cooperative launch (0 if none).
    pub workspace: u64,
    /// Blocks per cluster (`[1, 1, 1]` without clusters).
    pub cluster: [u32; 3],
    /// Whether the launch or the kernel named a cluster (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
    /// Where printf output goes as it fills, and the flag that stops the launch.
    pub hooks: &'a LaunchHooks<'a>,
    /// The grid's device-side launches, parameter buffers and streams.
    pub children: &'a super::device_runtime::ChildGrids<'a>,
}

impl Launch<'_> {
    /// Hands a block's buffered printf output to the launch's sink, if it has one; without
    /// one the output stays with the block and is returned with the launch.
    pub fn flush_printf(&self, buffer: &mut String) {
        if let Some(sink) = self.hooks.printf {
            sink(buffer);
            buffer.clear();
        }
    }
}

/// What the run loop does after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Go on with the next instruction.
    Next,
    /// The lanes of the mask jump to the target; the others of the group fall through.
    Branch(u32),
    /// Lanes changed state (call, return, exit, wait): pick the next group.
    Reschedule,
}

/// Iterates over the set lanes of a mask.
macro_rules! for_lanes {
    ($mask:expr, |$l:ident| $body:block) => {{
        let mut m: u32 = $mask;
        while m != 0 {
            let $l = m.trailing_zeros() as usize;
            m &= m - 1;
            $body
        }
    }};
}
pub(crate) use for_lanes;

/// Decodes an instruction into its operation.
pub(crate) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let Some(op) = inst.opcode.known() else {
        return Err(d.error(
            inst,
            format!(
                "`{}` is not supported on the CPU device",
                inst.opcode.as_str()
            ),
        ));
    };
    let unsupported = || {
        let mut name = inst.opcode.as_str().to_string();
        for m in &inst.modifiers {
            name.push('.');
            name.push_str(&m.to_word());
        }
        Err(d.error(inst, format!("`{name}` is not supported on the CPU device")))
    };
    match op {
        K::Mov | K::Cvt | K::Cvta | K::Isspacep => convert::decode(d, inst, op),
        K::Setp | K::Set | K::Selp | K::Slct | K::Testp => compare::decode(d, inst, op),
        K::Ld | K::Ldu | K::St | K::Prefetch | K::Prefetchu | K::Discard | K::Createpolicy => {
            memory_ops::decode(d, inst, op)
        }
        K::Cp if inst.modifiers.iter().any(|m| m.to_word() == "bulk") => bulk_copy::decode(d, inst),
        K::Cp if inst.modifiers.iter().any(|m| m.to_word() == "mbarrier") => {
            mbarrier::decode_cp_async_arrive(d, inst)
        }
        K::Cp if inst.modifiers.iter().any(|m| m.to_word() == "async") => {
            memory_ops::decode_cp_async(d, inst)
        }
        K::Mbarrier => mbarrier::decode(d, inst),
        K::Tex | K::Tld4 | K::Txq | K::Suld | K::Sust | K::Suq => texture_ops::decode(d, inst, op),
        K::Atom | K::Red => atomics::decode(d, inst, op),
        K::Ldmatrix | K::Stmatrix => matrix_move::decode(d, inst),
        K::Mma => mma::decode_mma(d, inst),
        K::Wmma => wmma::decode(d, inst),
        K::Wgmma => wgmma::decode(d, inst),
        K::Bra
        | K::Brx
        | K::Ret
        | K::Exit
        | K::Trap
        | K::Brkpt
        | K::Alloca
        | K::Stacksave
        | K::Stackrestore
        | K::Nanosleep
        | K::Pmevent
        | K::Griddepcontrol
        | K::Setmaxnreg
        | K::Mapa
        | K::Getctarank => control::decode(d, inst, op),
        K::Call => calls::decode(d, inst),
        K::Bar | K::Barrier | K::Membar | K::Fence => barrier::decode(d, inst, op),
        K::Shfl | K::Vote | K::Match | K::Redux | K::Activemask | K::Elect => {
            warp_ops::decode(d, inst, op)
        }
        _ if inst.ty().is_some_and(|t| t.is_float()) && float::handles(op) => {
            float::decode(d, inst, op)
        }
        K::Add
        | K::Sub
        | K::Mul
        | K::Mad
        | K::Mul24
        | K::Mad24
        | K::Div
        | K::Rem
        | K::Min
        | K::Max
        | K::Neg
        | K::Abs
        | K::And
        | K::Or
        | K::Xor
        | K::Not
        | K::Cnot
        | K::Shl
        | K::Shr
        | K::Popc
        | K::Clz
        | K::Brev
        | K::Bfind
        | K::Bfe
        | K::Bfi
        | K::Prmt
        | K::Shf
        | K::Lop3
        | K::Dp4a
        | K::Dp2a
        | K::Sad
        | K::Bmsk
        | K::Szext
        | K::Fns
        | K::Addc
        | K::Subc
        | K::Madc => int::decode(d, inst, op),
        _ => unsupported(),
    }
}

/// Executes `op` for the lanes of `mask` (non-empty, a subset of the warp's group).
#[inline]
pub(crate) fn execute(
    op: &Op,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    if let Some(races) = l.hooks.races {
        super::race::observe(races, op, w, b, l, mask);
    }
    match op {
        Op::IntBin { .. }
        | Op::IntUn { .. }
        | Op::IntTer { .. }
        | Op::Bfi { .. }
        | Op::Prmt { .. }
        | Op::Shf { .. }
        | Op::Lop3 { .. } => int::execute(op, w, mask),
        Op::Float { .. } => float::execute(op, w, mask),
        Op::Setp { .. }
        | Op::Selp { .. }
        | Op::Slct { .. }
        | Op::Testp { .. }
        | Op::PredLogic { .. } => compare::execute(op, w, mask),
        Op::Mov { .. }
        | Op::Pack { .. }
        | Op::Unpack { .. }
        | Op::Cvt { .. }
        | Op::CvtPack { .. }
        | Op::Cvta { .. }
        | Op::Isspacep { .. } => convert::execute(op, w, l, mask),
        Op::Ld { .. } | Op::St { .. } | Op::CpAsync { .. } => {
            memory_ops::execute(op, w, b, l, mask)
        }
        Op::Atom { .. } => atomics::execute(op, w, b, l, mask),
        Op::Call(call) => calls::call(call, w, b, l, mask),
        Op::Ret => calls::ret(w, b, l, mask),
        Op::Bar { .. } | Op::Fence => barrier::execute(op, w, b, l, mask),
        Op::ClusterBarrier { wait } => barrier::cluster_barrier(*wait, w, b, mask),
        Op::BulkTensor(t) => bulk_tensor::execute(t, w, b, l, mask),
        Op::Warp { .. } | Op::Activemask { .. } => warp_ops::execute(op, w, mask),
        Op::MatrixMove(m) => matrix_move::execute(m, w, b, l, mask),
        Op::Mma(m) => mma::mma(m, w, mask),
        Op::Mbarrier(m) => mbarrier::execute(m, w, b, l, mask),
        Op::BulkCopy(c) => bulk_copy::execute(c, w, b, l, mask),
        Op::Texture(t) => texture_ops::execute(t, w, b, l, mask),
        Op::WmmaMove(m) => wmma::transfer(m, w, b, l, mask),
        Op::WmmaMma(m) => wmma::mma(m, w, mask),
        Op::Wgmma(m) => wgmma::execute(m, w, b, l, mask),
        Op::Nop => Ok(Flow::Next),
        _ => control::execute(op, w, b, l, mask),
    }
}

/// Runs the warp's lanes until none is ready or `slice` instructions have run.
pub(crate) fn run_warp(
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    slice: u32,
) -> Result<(), ExecFault> {
    let functions = &l.program.functions;
    if (w.group == 0 || w.others_ready()) && !w.reschedule() {
        return Ok(());
    }
    for _ in 0..slice {
        let function = &functions[w.gfunc as usize];
        let pc = w.gpc as usize;
        let flow = match function.insts.get(pc) {
            Some(inst) => {
                let mask = w.guard_mask(inst.guard);
                if mask == 0 {
                    Flow::Next
                } else {
                    w.lane_instructions += u64::from(mask.count_ones());
                    let flow = execute(&inst.op, w, b, l, mask)?;
                    if let Flow::Branch(target) = flow {
                        branch(w, mask, target);
                        continue;
                    }
                    flow
                }
            }
            // Running off the end of a function returns from it.
            None => calls::ret(w, b, l, w.group)?,
        };
        match flow {
            Flow::Next => {
                w.gpc += 1;
                if w.gpc == w.merge_pc && !w.reschedule() {
                    return Ok(());
                }
            }
            Flow::Reschedule | Flow::Branch(_) => {
                if !w.reschedule() {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// Backward branches a diverged group may take before the lanes furthest ahead get a turn.
const SPIN_TURNS: u32 = 256;

/// Moves `taken` lanes of the group to `target` and the rest to the next instruction.
fn branch(w: &mut Warp, taken: u32, target: u32) {
    let not_taken = w.group & !taken;
    if not_taken == 0 {
        let backward = target <= w.gpc;
        w.gpc = target;
        if w.others_ready() {
            // Lanes looping while others wait further on may be spinning on those others (a lock
            // held by a lane of the same warp): now and then let the lanes furthest ahead run,
            // as independent thread scheduling guarantees.
            if backward {
                w.spins += 1;
                if w.spins >= SPIN_TURNS {
                    w.spins = 0;
                    w.reschedule_furthest();
                    return;
                }
            }
            w.reschedule();
        }
        return;
    }
    let next = w.gpc + 1;
    w.park();
    for_lanes!(taken, |lane| {
        w.pc[lane] = target;
    });
    for_lanes!(not_taken, |lane| {
        w.pc[lane] = next;
    });
    w.group = 0;
    w.reschedule();
}

/// Restricts the group to `mask` for an instruction that changes control state (call, return,
/// exit, barrier, collective); the other lanes of the group move on to the next instruction.
pub(crate) fn narrow(w: &mut Warp, mask: u32) {
    let rest = w.group & !mask;
    if rest != 0 {
        let next = w.gpc + 1;
        for_lanes!(rest, |lane| {
            w.pc[lane] = next;
        });
        w.group = mask;
    }
}
