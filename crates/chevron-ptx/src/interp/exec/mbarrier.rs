//! `mbarrier` (sm_80 arrive/wait barriers in shared memory) and `cp.async.mbarrier.arrive`.
//!
//! The 8-byte barrier object holds the pending arrival count (bits 0-30), the expected count
//! (bits 32-62) and the current phase (bit 63). An arrival returns a state token whose bit 63 is
//! the phase it arrived in; `test_wait`/`try_wait` report whether that phase has completed.
//! Transaction counts (`expect_tx`, `complete_tx`) of TMA are not modelled: TMA itself is not
//! supported. Since `cp.async` copies complete at once, `cp.async.mbarrier.arrive.noinc` is an
//! arrival and `cp.async.mbarrier.arrive` changes nothing.

use super::memory_ops::{address, check_align, load, locate, store};
use super::{for_lanes, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Addr, Op, Space, Src, SINK};
use crate::interp::program::{space_of, Decoder};
use crate::interp::warp::Warp;
use crate::ir::{self, Operand, ScalarType as T};

/// What an `mbarrier` instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MbarrierKind {
    Init,
    Arrive { drop: bool },
    Wait { parity: bool },
    Inval,
    PendingCount,
}

/// A decoded `mbarrier` instruction.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mbarrier {
    pub kind: MbarrierKind,
    pub space: Space,
    pub d: u32,
    pub addr: Addr,
    /// The count (init, arrive), the state or parity (wait, pending_count).
    pub b: Option<Src>,
}

const PHASE: u64 = 1 << 63;
const COUNT: u64 = 0x7fff_ffff;

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let unsupported = || {
        d.error(
            inst,
            "this `mbarrier` form is not supported on the CPU device",
        )
    };
    if has("expect_tx") || has("complete_tx") || has("shared::cluster") {
        return Err(unsupported());
    }
    let space = match space_of(inst) {
        Space::Shared | Space::Generic => space_of(inst),
        _ => return Err(unsupported()),
    };
    let kind = if has("init") {
        MbarrierKind::Init
    } else if has("arrive") {
        MbarrierKind::Arrive { drop: false }
    } else if has("arrive_drop") {
        MbarrierKind::Arrive { drop: true }
    } else if has("test_wait") || has("try_wait") {
        MbarrierKind::Wait {
            parity: has("parity"),
        }
    } else if has("inval") {
        MbarrierKind::Inval
    } else if has("pending_count") {
        MbarrierKind::PendingCount
    } else {
        return Err(unsupported());
    };
    let src = |i: usize, ty: T| -> Result<Option<Src>, LoadError> {
        inst.operands.get(i).map(|o| d.src(inst, o, ty)).transpose()
    };
    let (dst, addr, b) = match kind {
        MbarrierKind::Init => (SINK, 0, src(1, T::U32)?),
        MbarrierKind::Inval => (SINK, 0, None),
        MbarrierKind::PendingCount => (d.dst_at(inst, 0)?, usize::MAX, src(1, T::B64)?),
        MbarrierKind::Arrive { .. } => match inst.operands.first() {
            Some(Operand::Address(_)) => (SINK, 0, src(1, T::U32)?),
            _ => (d.dst_at(inst, 0)?, 1, src(2, T::U32)?),
        },
        MbarrierKind::Wait { .. } => (d.dst_at(inst, 0)?, 1, src(2, T::B64)?),
    };
    let addr = match inst.operands.get(addr) {
        Some(op) => d.addr(inst, op, space)?,
        None => Addr {
            base: crate::interp::inst::AddrBase::Abs,
            offset: 0,
        },
    };
    Ok(Op::Mbarrier(Box::new(Mbarrier {
        kind,
        space,
        d: dst,
        addr,
        b,
    })))
}

/// `cp.async.mbarrier.arrive{.noinc}.b64 [addr]`.
pub(super) fn decode_cp_async_arrive(
    d: &Decoder<'_>,
    inst: &ir::Instruction,
) -> Result<Op, LoadError> {
    if !inst.modifiers.iter().any(|m| m.to_word() == "noinc") {
        return Ok(Op::Nop);
    }
    let space = match space_of(inst) {
        Space::Shared => Space::Shared,
        _ => Space::Generic,
    };
    let addr = d.addr(
        inst,
        inst.operands
            .first()
            .ok_or_else(|| d.error(inst, "missing address"))?,
        space,
    )?;
    Ok(Op::Mbarrier(Box::new(Mbarrier {
        kind: MbarrierKind::Arrive { drop: false },
        space,
        d: SINK,
        addr,
        b: None,
    })))
}

pub(super) fn execute(
    op: &Mbarrier,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    for_lanes!(mask, |lane| {
        if op.kind == MbarrierKind::PendingCount {
            let state = op.b.map(|s| w.get(s, lane)).unwrap_or(0);
            w.set(op.d, lane, state & COUNT);
            continue;
        }
        let a = address(w, &op.addr, lane);
        check_align(a, 8, lane)?;
        let loc = locate(op.space, &op.addr, a);
        let state = load(w, b, l, loc, 8, lane, a)?;
        let arg = op.b.map(|s| w.get(s, lane));
        match op.kind {
            MbarrierKind::Init => {
                let count = arg.unwrap_or(1) & COUNT;
                store(w, b, l, loc, 8, lane, a, count | count << 32)?;
            }
            MbarrierKind::Inval => store(w, b, l, loc, 8, lane, a, 0)?,
            MbarrierKind::Arrive { drop } => {
                let count = arg.unwrap_or(1).max(1) & COUNT;
                let (mut pending, mut expected, phase) =
                    (state & COUNT, (state >> 32) & COUNT, state & PHASE);
                if drop {
                    expected = expected.saturating_sub(count);
                }
                pending = pending.saturating_sub(count);
                let next = if pending == 0 {
                    expected | expected << 32 | (phase ^ PHASE)
                } else {
                    pending | expected << 32 | phase
                };
                store(w, b, l, loc, 8, lane, a, next)?;
                w.set(op.d, lane, phase | (state & COUNT));
            }
            MbarrierKind::Wait { parity } => {
                let current = state >> 63;
                let waited = if parity {
                    arg.unwrap_or(0) & 1
                } else {
                    arg.unwrap_or(0) >> 63
                };
                w.set(op.d, lane, u64::from(current != waited));
            }
            MbarrierKind::PendingCount => {}
        }
    });
    Ok(Flow::Next)
}
