//! `mbarrier` (sm_80 arrive/wait barriers in shared memory) and `cp.async.mbarrier.arrive`.
//!
//! The 8-byte barrier object holds the pending arrival count (bits 0-20), the expected count
//! (bits 21-41), the pending transaction count (bits 42-62, two's complement: a copy may complete
//! its bytes before the thread that expects them arrives) and the current phase (bit 63). A
//! phase completes when both its pending arrivals and its pending transaction bytes reach zero.
//! An arrival returns a state token whose bit 63 is the phase it arrived in; `test_wait` and
//! `try_wait` report whether that phase has completed. `expect_tx` adds bytes, `complete_tx` (and
//! the `cp.async.bulk` copies that name the barrier) subtracts them. Since `cp.async` copies
//! complete at once, `cp.async.mbarrier.arrive.noinc` is an arrival and
//! `cp.async.mbarrier.arrive` changes nothing. Without clusters, `.shared::cluster` addresses
//! are the block's own shared memory.

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
    /// An arrival (`drop`: leaving the barrier; `expect_tx`: first adding operand `b` bytes to
    /// the transaction count, the arrival count then being 1).
    Arrive {
        drop: bool,
        expect_tx: bool,
    },
    ExpectTx,
    CompleteTx,
    Wait {
        parity: bool,
    },
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
/// Width of each count field.
const BITS: u32 = 21;
const COUNT: u64 = (1 << BITS) - 1;
const EXPECTED_SHIFT: u32 = BITS;
const TX_SHIFT: u32 = 2 * BITS;

/// The fields of a barrier word: pending arrivals, expected arrivals, pending transaction
/// bytes (signed) and the phase bit.
#[derive(Debug, Clone, Copy)]
struct State {
    pending: u64,
    expected: u64,
    tx: i64,
    phase: u64,
}

impl State {
    fn unpack(word: u64) -> State {
        let tx = ((word >> TX_SHIFT) & COUNT) as i64;
        State {
            pending: word & COUNT,
            expected: (word >> EXPECTED_SHIFT) & COUNT,
            tx: (tx << (64 - BITS)) >> (64 - BITS),
            phase: word & PHASE,
        }
    }

    fn init(count: u64) -> u64 {
        let count = count & COUNT;
        count | count << EXPECTED_SHIFT
    }

    /// The word, moving to the next phase when nothing is pending.
    fn pack(self) -> u64 {
        if self.pending == 0 && self.tx == 0 {
            return State::init(self.expected) | (self.phase ^ PHASE);
        }
        self.pending
            | self.expected << EXPECTED_SHIFT
            | ((self.tx as u64) & COUNT) << TX_SHIFT
            | self.phase
    }
}

/// Completes `bytes` transaction bytes of the barrier word `word` (a `cp.async.bulk` copy's
/// `complete_tx`): the new word.
pub(crate) fn complete_tx(word: u64, bytes: u64) -> u64 {
    let mut state = State::unpack(word);
    state.tx -= bytes as i64;
    state.pack()
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let words: Vec<String> = inst.modifiers.iter().map(|m| m.to_word()).collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let unsupported = || {
        d.error(
            inst,
            "this `mbarrier` form is not supported on the CPU device",
        )
    };
    let space = match space_of(inst) {
        Space::Shared | Space::Generic => space_of(inst),
        _ => return Err(unsupported()),
    };
    let kind = if has("init") {
        MbarrierKind::Init
    } else if has("arrive") || has("arrive_drop") {
        MbarrierKind::Arrive {
            drop: has("arrive_drop"),
            expect_tx: has("expect_tx"),
        }
    } else if has("expect_tx") {
        MbarrierKind::ExpectTx
    } else if has("complete_tx") {
        MbarrierKind::CompleteTx
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
        MbarrierKind::Init | MbarrierKind::ExpectTx | MbarrierKind::CompleteTx => {
            (SINK, 0, src(1, T::U32)?)
        }
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
        kind: MbarrierKind::Arrive {
            drop: false,
            expect_tx: false,
        },
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
                store(w, b, l, loc, 8, lane, a, State::init(arg.unwrap_or(1)))?;
            }
            MbarrierKind::Inval => store(w, b, l, loc, 8, lane, a, 0)?,
            MbarrierKind::ExpectTx | MbarrierKind::CompleteTx => {
                let bytes = arg.unwrap_or(0) & COUNT;
                let mut s = State::unpack(state);
                if op.kind == MbarrierKind::ExpectTx {
                    s.tx += bytes as i64;
                } else {
                    s.tx -= bytes as i64;
                }
                store(w, b, l, loc, 8, lane, a, s.pack())?;
            }
            MbarrierKind::Arrive { drop, expect_tx } => {
                let mut s = State::unpack(state);
                let count = if expect_tx {
                    s.tx += (arg.unwrap_or(0) & COUNT) as i64;
                    1
                } else {
                    arg.unwrap_or(1).max(1) & COUNT
                };
                if drop {
                    s.expected = s.expected.saturating_sub(count);
                }
                s.pending = s.pending.saturating_sub(count);
                store(w, b, l, loc, 8, lane, a, s.pack())?;
                w.set(op.d, lane, s.phase | (state & COUNT));
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
