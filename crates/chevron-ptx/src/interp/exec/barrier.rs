//! Block barriers (`bar.sync`, `barrier.sync`, `bar.arrive`, `bar.red.{popc,and,or}`) with
//! barrier ids and thread counts, cluster barriers (`barrier.cluster.arrive`/`.wait`, over the
//! cluster's state in `interp/cluster.rs`), and memory fences (`membar`, `fence`).

use super::compare::pred_pair;
use super::{for_lanes, narrow, Flow, Launch};
use crate::interp::block::{Barrier, Block, BARRIERS};
use crate::interp::cluster::ClusterLink;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{BarrierKind, Collective, Op, Src, SINK};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, Flag, KnownOpcode as K, Modifier, Op as IrOp, ScalarType as T};

fn has_word(inst: &ir::Instruction, word: &str) -> bool {
    inst.modifiers.iter().any(|m| m.to_word() == word)
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    if matches!(op, K::Membar | K::Fence) {
        return Ok(Op::Fence);
    }
    if has_word(inst, "warp") {
        let mask = d.src_at(inst, 0, T::B32)?;
        return Ok(Op::Warp {
            c: Collective::WarpSync,
            mask,
        });
    }
    if has_word(inst, "cluster") {
        return Ok(Op::ClusterBarrier {
            wait: !inst.has(Flag::Arrive),
        });
    }
    let aligned = inst.has(Flag::Aligned) || op == K::Bar;
    if inst.has(Flag::Red) {
        let red = inst
            .ops()
            .next()
            .ok_or_else(|| d.error(inst, "bar.red needs .popc, .and or .or"))?;
        let (dst, _, first) = pred_pair(d, inst, 3)?;
        let rest = inst.operands.len() - first;
        let count = if rest >= 3 {
            Some(d.src_at(inst, first + 1, T::U32)?)
        } else {
            None
        };
        return Ok(Op::Bar {
            kind: BarrierKind::Red(red),
            id: d.src_at(inst, first, T::U32)?,
            count,
            d: dst,
            pred: d.src_at(inst, inst.operands.len() - 1, T::Pred)?,
            aligned,
        });
    }
    let kind = if inst.has(Flag::Arrive) {
        BarrierKind::Arrive
    } else {
        BarrierKind::Sync
    };
    let id = match inst.operands.first() {
        Some(_) => d.src_at(inst, 0, T::U32)?,
        None => Src::Imm(0),
    };
    let count = match inst.operands.get(1) {
        Some(_) => Some(d.src_at(inst, 1, T::U32)?),
        None => None,
    };
    let _ = Modifier::Flag(Flag::Sync);
    Ok(Op::Bar {
        kind,
        id,
        count,
        d: SINK,
        pred: Src::Imm(1),
        aligned,
    })
}

pub(super) fn execute(
    op: &Op,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    let Op::Bar {
        kind,
        id,
        count,
        d,
        pred,
        ..
    } = op
    else {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        return Ok(Flow::Next);
    };
    narrow(w, mask);
    let first = mask.trailing_zeros() as usize;
    let barrier = w.get(*id, first);
    if barrier >= BARRIERS as u64 {
        return Err(ExecFault::new(
            FaultKind::Unsupported,
            first as u32,
            format!("barrier id {barrier} is not below {BARRIERS}"),
        ));
    }
    let count = count.map(|c| w.get(c, first) as u32);
    if l.memory.checks_barriers() && *kind != BarrierKind::Arrive {
        synccheck(
            &b.barriers[barrier as usize],
            (w.gfunc, w.gpc),
            count,
            first,
        )?;
        b.barriers[barrier as usize]
            .site
            .get_or_insert((w.gfunc, w.gpc));
    }
    if let Some(n) = count {
        if n % 32 != 0 && n < b.live {
            // PTX requires a multiple of the warp size; accept what the block can satisfy.
        }
    }
    let red = match kind {
        BarrierKind::Red(op) => {
            let mut trues = 0u64;
            for_lanes!(mask, |lane| {
                trues += u64::from(w.pred(*pred, lane));
                w.bar_dst[lane] = if *d == SINK {
                    usize::MAX
                } else {
                    w.reg_index(*d, lane)
                };
            });
            let all = u64::from(mask.count_ones());
            Some(match op {
                IrOp::And => (IrOp::And, u64::from(trues == all)),
                IrOp::Or => (IrOp::Or, u64::from(trues > 0)),
                _ => (IrOp::Popc, trues),
            })
        }
        _ => None,
    };
    if *kind == BarrierKind::Arrive {
        b.arrive(barrier as usize, w.index, mask, count, false, None);
        return Ok(Flow::Next);
    }
    let next = w.gpc + 1;
    for_lanes!(mask, |lane| {
        w.pc[lane] = next;
    });
    w.bar_wait |= mask;
    w.group = 0;
    b.arrive(barrier as usize, w.index, mask, count, true, red);
    b.apply_releases(w);
    Ok(Flow::Reschedule)
}

/// `barrier.cluster.arrive` (`wait` false) or `barrier.cluster.wait` by `mask`'s lanes.
pub(super) fn cluster_barrier(
    wait: bool,
    w: &mut Warp,
    b: &mut Block,
    mask: u32,
) -> Result<Flow, ExecFault> {
    narrow(w, mask);
    let live = b.live;
    let link = b.cluster.get_or_insert_with(|| ClusterLink::solo(live));
    if !wait {
        link.arrive(w.index, mask);
        link.release_own(&mut b.releases);
        return Ok(Flow::Next);
    }
    let waiting = link.wait(w.index, mask);
    if waiting == 0 {
        return Ok(Flow::Next);
    }
    link.release_own(&mut b.releases);
    let next = w.gpc + 1;
    for_lanes!(mask, |lane| {
        w.pc[lane] = next;
    });
    w.bar_wait |= waiting;
    w.group = 0;
    b.apply_releases(w);
    Ok(Flow::Reschedule)
}

/// synccheck: a block's threads waiting at one barrier from two different instructions (a
/// `__syncthreads()` in code the block does not run alike), or with different thread counts.
fn synccheck(
    barrier: &Barrier,
    site: (u32, u32),
    count: Option<u32>,
    lane: usize,
) -> Result<(), ExecFault> {
    if barrier.arrived == 0 {
        return Ok(());
    }
    if let (Some(expected), Some(count)) = (barrier.expected, count) {
        if expected != count {
            return Err(ExecFault::new(
                FaultKind::BarrierError,
                lane as u32,
                format!(
                    "the barrier's thread count is {count} here, {expected} where other \
                     threads wait"
                ),
            ));
        }
    }
    match barrier.site {
        Some(first) if first != site => Err(ExecFault::new(
            FaultKind::BarrierError,
            lane as u32,
            format!(
                "{} threads of the block wait at the same barrier from another instruction \
                 (a barrier in divergent code)",
                barrier.arrived
            ),
        )),
        _ => Ok(()),
    }
}
