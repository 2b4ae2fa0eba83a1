//! `cp.async.bulk` without tensor maps (sm_90): a contiguous copy of `size` bytes (a multiple of
//! 16) from global to shared memory that completes its bytes on an `mbarrier`'s transaction
//! count, or from shared to global memory in a bulk group. Copies run at once, so the group
//! instructions (`cp.async.bulk.commit_group`, `wait_group`) and `cp.async.bulk.prefetch` have
//! nothing left to wait for. A `.shared::cluster` address reaches the block of the cluster it
//! names (`interp/cluster.rs`). Tensor forms are `bulk_tensor.rs`'s.

use super::mbarrier::complete_tx;
use super::memory_ops::{address, check_align, load, locate, store};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{self, ScalarType as T};

/// A decoded `cp.async.bulk` copy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BulkCopy {
    pub dst: Addr,
    pub dst_space: Space,
    pub src: Addr,
    pub src_space: Space,
    pub size: Src,
    /// The barrier whose transaction count the copy completes (copies into shared memory).
    pub mbarrier: Option<Addr>,
}

/// Decodes a `cp.async.bulk` instruction (the caller has seen the `bulk` modifier).
pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    if has("commit_group") || has("wait_group") || has("prefetch") {
        return Ok(Op::Nop);
    }
    if has("tensor") {
        return super::bulk_tensor::decode(d, inst);
    }
    if has("multicast::cluster") {
        return Err(d.error(
            inst,
            "multicast `cp.async.bulk` copies are not supported on the CPU device",
        ));
    }
    // The first space named is the destination's, the second the source's.
    let spaces: Vec<Space> = words
        .iter()
        .filter_map(|w| match w.as_str() {
            "global" => Some(Space::Global),
            "shared" | "shared::cta" | "shared::cluster" => Some(Space::Shared),
            _ => None,
        })
        .collect();
    let [dst_space, src_space] = spaces[..] else {
        return Err(d.error(
            inst,
            "`cp.async.bulk` needs a destination and a source space",
        ));
    };
    let operand = |i: usize| {
        inst.operands
            .get(i)
            .ok_or_else(|| d.error(inst, "`cp.async.bulk` is missing an operand"))
    };
    let mbarrier = if words.iter().any(|w| w.starts_with("mbarrier")) {
        Some(d.addr(inst, operand(3)?, Space::Shared)?)
    } else {
        None
    };
    Ok(Op::BulkCopy(Box::new(BulkCopy {
        dst: d.addr(inst, operand(0)?, dst_space)?,
        dst_space,
        src: d.addr(inst, operand(1)?, src_space)?,
        src_space,
        size: d.src(inst, operand(2)?, T::U32)?,
        mbarrier,
    })))
}

pub(super) fn execute(
    op: &BulkCopy,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    for_lanes!(mask, |lane| {
        let size = w.get(op.size, lane) & 0xffff_ffff;
        let (to, from) = (address(w, &op.dst, lane), address(w, &op.src, lane));
        if !size.is_multiple_of(16) {
            return Err(ExecFault::at(
                FaultKind::Misaligned,
                lane as u32,
                from,
                format!("`cp.async.bulk` of {size} bytes: the size must be a multiple of 16"),
            ));
        }
        check_align(to, 16, lane)?;
        check_align(from, 16, lane)?;
        for off in (0..size).step_by(8) {
            let (src, dst) = (from.wrapping_add(off), to.wrapping_add(off));
            let v = load(w, b, l, locate(op.src_space, &op.src, src), 8, lane, src)?;
            store(w, b, l, locate(op.dst_space, &op.dst, dst), 8, lane, dst, v)?;
        }
        if let Some(bar) = &op.mbarrier {
            let a = address(w, bar, lane);
            check_align(a, 8, lane)?;
            let loc = locate(Space::Shared, bar, a);
            let word = load(w, b, l, loc, 8, lane, a)?;
            store(w, b, l, loc, 8, lane, a, complete_tx(word, size))?;
        }
    });
    Ok(Flow::Next)
}
