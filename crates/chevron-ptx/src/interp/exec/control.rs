//! Control flow other than calls: `bra`, `exit`, `trap`, `brkpt`, and the stack instructions
//! `alloca`, `stacksave`, `stackrestore`; hints (`nanosleep`, `pmevent`, `griddepcontrol`,
//! `setmaxnreg`) do nothing on the CPU device.

use super::{for_lanes, narrow, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::cluster;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::Op;
use crate::interp::memory::SHARED_WINDOW;
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, KnownOpcode as K, ScalarType as T};

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    Ok(match op {
        K::Bra => Op::Bra {
            target: d.label_at(inst, 0)?,
        },
        K::Brx => {
            let list = match inst.operands.get(1) {
                Some(ir::Operand::Symbol(name)) => name,
                _ => return Err(d.error(inst, "brx.idx needs a .branchtargets label")),
            };
            let targets = d
                .branch_targets
                .get(list)
                .ok_or_else(|| d.error(inst, format!("unknown .branchtargets list `{list}`")))?;
            let targets = targets
                .iter()
                .map(|t| {
                    d.labels
                        .get(t)
                        .copied()
                        .ok_or_else(|| d.error(inst, format!("unknown label `{t}`")))
                })
                .collect::<Result<_, _>>()?;
            Op::Brx {
                index: d.src_at(inst, 0, T::U32)?,
                targets,
            }
        }
        K::Ret => Op::Ret,
        K::Exit => Op::Exit,
        K::Trap => Op::Trap,
        K::Brkpt => Op::Brkpt,
        K::Alloca => {
            let align = match inst.operands.get(2) {
                Some(ir::Operand::Immediate(ir::Immediate::Int(a))) => (*a).max(1) as u32,
                _ => 8,
            };
            Op::Alloca {
                d: d.dst_at(inst, 0)?,
                size: d.src_at(inst, 1, T::U64)?,
                align,
            }
        }
        K::Stacksave => Op::StackSave {
            d: d.dst_at(inst, 0)?,
        },
        K::Stackrestore => Op::StackRestore {
            a: d.src_at(inst, 0, T::U64)?,
        },
        K::Nanosleep => Op::Nanosleep,
        K::Mapa => Op::Mapa {
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, T::U64)?,
            rank: d.src_at(inst, 2, T::U32)?,
        },
        K::Getctarank => Op::Getctarank {
            d: d.dst_at(inst, 0)?,
            a: d.src_at(inst, 1, T::U64)?,
        },
        _ => Op::Nop,
    })
}

/// Blocks per cluster of the launch.
fn cluster_blocks(l: &Launch<'_>) -> u32 {
    l.cluster.iter().product()
}

pub(super) fn execute(
    op: &Op,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    let first = mask.trailing_zeros();
    match op {
        Op::Bra { target } => return Ok(Flow::Branch(*target)),
        Op::Exit => {
            narrow(w, mask);
            w.exited |= mask;
            w.group = 0;
            b.exited(mask.count_ones());
            return Ok(Flow::Reschedule);
        }
        Op::Trap => {
            return Err(ExecFault::new(
                FaultKind::Trap,
                first,
                "the kernel executed `trap`",
            ))
        }
        Op::Brkpt => {
            return Err(ExecFault::new(
                FaultKind::Breakpoint,
                first,
                "the kernel executed `brkpt`",
            ))
        }
        Op::Alloca { d, size, align } => {
            let align = u64::from(*align).next_power_of_two();
            for_lanes!(mask, |lane| {
                let base = w.stack_top[lane].next_multiple_of(align);
                let bytes = w.get(*size, lane);
                w.set_stack_top(lane, base.saturating_add(bytes))?;
                w.set(*d, lane, base);
            });
        }
        Op::StackSave { d } => {
            for_lanes!(mask, |lane| {
                let top = w.stack_top[lane];
                w.set(*d, lane, top);
            });
        }
        Op::StackRestore { a } => {
            for_lanes!(mask, |lane| {
                let top = w.get(*a, lane);
                if top < w.frame_base[lane] {
                    return Err(ExecFault::at(
                        FaultKind::StackOverflow,
                        lane as u32,
                        top,
                        "stackrestore below the current frame",
                    ));
                }
                w.set_stack_top(lane, top)?;
            });
        }
        Op::Nanosleep => {}
        Op::Mapa { d, a, rank } => {
            let blocks = cluster_blocks(l);
            for_lanes!(mask, |lane| {
                let r = w.get(*rank, lane);
                if r >= u64::from(blocks) {
                    return Err(ExecFault::new(
                        FaultKind::OutOfBounds,
                        lane as u32,
                        format!("`mapa` to rank {r} of a cluster of {blocks} blocks"),
                    ));
                }
                let v = cluster::map_address(w.get(*a, lane), r as u32);
                w.set(*d, lane, v);
            });
        }
        Op::Getctarank { d, a } => {
            let own = b.cluster.as_ref().map_or(0, |c| c.rank);
            for_lanes!(mask, |lane| {
                let a = w.get(*a, lane);
                let offset = if a >= SHARED_WINDOW {
                    a - SHARED_WINDOW
                } else {
                    a
                };
                let rank = cluster::rank_of(offset).unwrap_or(own);
                w.set(*d, lane, u64::from(rank));
            });
        }
        Op::Unsupported(what) => {
            return Err(ExecFault::new(FaultKind::Unsupported, first, what.clone()))
        }
        Op::Brx { index, targets } => {
            narrow(w, mask);
            for_lanes!(mask, |lane| {
                let i = w.get(*index, lane);
                let target = *targets.get(i as usize).ok_or_else(|| {
                    ExecFault::new(
                        FaultKind::OutOfBounds,
                        lane as u32,
                        format!("brx.idx index {i} beyond its {} targets", targets.len()),
                    )
                })?;
                w.pc[lane] = target;
            });
            w.group = 0;
            return Ok(Flow::Reschedule);
        }
        _ => {}
    }
    Ok(Flow::Next)
}
