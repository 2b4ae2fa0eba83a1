//! Warp collectives: `shfl.sync` (up/down/bfly/idx with clamp and segment mask, predicate
//! output), `vote.sync` (all/any/uni/ballot), `match.sync` (any/all), `redux.sync`,
//! `elect.sync`, `bar.warp.sync` and `activemask`.
//!
//! A collective runs once for all the lanes of its member masks. When some member lanes are not
//! in the current group (they diverged), the group waits at the instruction until the others
//! arrive; if they never can, the block finally runs the collective with the lanes present.
//! Each lane then combines its partners ([`partners`]) and nothing else: a `shfl` from a lane
//! that did not execute the instruction reads 0, as NVIDIA's hardware does
//! (`scripts/gpu/probes/collective_probe.h200.txt`, `docs/cpu-device-fidelity.md`).

use super::compare::pred_pair;
use super::{for_lanes, narrow, Flow};
use crate::interp::fault::{ExecFault, LoadError};
use crate::interp::inst::{Collective, Op, Src, SINK};
use crate::interp::program::Decoder;
use crate::interp::warp::Warp;
use crate::ir::{
    self, Flag, KnownOpcode as K, Modifier, Op as IrOp, ScalarType as T, ShuffleMode, VoteMode,
};

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction, op: K) -> Result<Op, LoadError> {
    let sync = inst.has(Flag::Sync);
    let last = |n: usize| -> Result<Src, LoadError> {
        if sync {
            d.src_at(inst, n, T::B32)
        } else {
            Ok(Src::Imm(u64::from(u32::MAX)))
        }
    };
    let ty = inst.types().last().unwrap_or(T::B32);
    Ok(match op {
        K::Activemask => Op::Activemask {
            d: d.dst_at(inst, 0)?,
        },
        K::Shfl => {
            let mode = inst
                .modifiers
                .iter()
                .find_map(|m| {
                    if let Modifier::Shuffle(s) = m {
                        Some(*s)
                    } else {
                        None
                    }
                })
                .ok_or_else(|| d.error(inst, "missing shfl mode"))?;
            let sources = 3 + usize::from(sync);
            let (dst, p, s) = pred_pair(d, inst, sources)?;
            Op::Warp {
                c: Collective::Shfl {
                    mode,
                    d: dst,
                    p,
                    a: d.src_at(inst, s, T::B32)?,
                    b: d.src_at(inst, s + 1, T::U32)?,
                    c: d.src_at(inst, s + 2, T::U32)?,
                },
                mask: last(s + 3)?,
            }
        }
        K::Vote => {
            let mode = inst.modifiers.iter().find_map(|m| {
                if let Modifier::Vote(v) = m {
                    Some(*v)
                } else {
                    None
                }
            });
            let uni = inst.has(Flag::Uni);
            Op::Warp {
                c: Collective::Vote {
                    mode: mode.unwrap_or(VoteMode::All),
                    uni: uni && mode.is_none(),
                    d: d.dst_at(inst, 0)?,
                    a: d.src_at(inst, 1, T::Pred)?,
                },
                mask: last(2)?,
            }
        }
        K::Match => {
            let bits = (ty.size() * 8) as u8;
            if inst.modifiers.iter().any(|m| m.to_word() == "all") {
                let (dst, p, s) = pred_pair(d, inst, 2)?;
                Op::Warp {
                    c: Collective::MatchAll {
                        d: dst,
                        p,
                        a: d.src_at(inst, s, ty)?,
                        bits,
                    },
                    mask: last(s + 1)?,
                }
            } else {
                Op::Warp {
                    c: Collective::MatchAny {
                        d: d.dst_at(inst, 0)?,
                        a: d.src_at(inst, 1, ty)?,
                        bits,
                    },
                    mask: last(2)?,
                }
            }
        }
        K::Redux => {
            let rop = inst
                .ops()
                .next()
                .ok_or_else(|| d.error(inst, "missing redux operation"))?;
            if ty.is_float() {
                return Err(d.error(
                    inst,
                    "float `redux.sync` is not supported on the CPU device",
                ));
            }
            Op::Warp {
                c: Collective::Redux {
                    op: rop,
                    signed: ty.is_signed(),
                    ty,
                    d: d.dst_at(inst, 0)?,
                    a: d.src_at(inst, 1, ty)?,
                },
                mask: last(2)?,
            }
        }
        _ => {
            let (dst, p, s) = pred_pair(d, inst, 1)?;
            Op::Warp {
                c: Collective::Elect { d: dst, p },
                mask: d.src_at(inst, s, T::B32)?,
            }
        }
    })
}

/// Gathers the member lanes, waiting for absent ones. Returns the lanes to run the collective
/// for, or None when the group must wait.
fn gather(w: &mut Warp, mask: u32, member: u32) -> Option<u32> {
    narrow(w, mask);
    let needed = member & w.valid & !w.exited;
    if w.force_collective || needed & !w.group == 0 {
        w.force_collective = false;
        return Some(mask);
    }
    let mut here = 0u32;
    for_lanes!(w.coll_wait, |lane| {
        if w.pc[lane] == w.gpc
            && w.func[lane] == w.gfunc
            && w.stacks[lane].len() == w.gdepth as usize
        {
            here |= 1 << lane;
        }
    });
    if needed & !(w.group | here) == 0 {
        w.coll_wait &= !here;
        w.group |= here;
        return Some(mask | here);
    }
    w.coll_wait |= mask;
    w.park();
    w.group = 0;
    None
}

/// Each lane's partners at a collective run for `lanes` with the per-lane member masks
/// `members`: as on hardware, where the compiler runs a collective once per distinct member
/// mask, a lane sees the executing lanes of its own mask when the masks differ, and every
/// executing lane when they agree (the mask then only says whom to wait for).
pub fn partners(lanes: u32, members: &[u32; 32]) -> [u32; 32] {
    let first = members[lanes.trailing_zeros().min(31) as usize];
    let mut uniform = true;
    for_lanes!(lanes, |lane| {
        uniform &= members[lane] == first;
    });
    std::array::from_fn(|lane| {
        if uniform {
            lanes
        } else {
            lanes & (members[lane] | 1 << lane)
        }
    })
}

pub(super) fn execute(op: &Op, w: &mut Warp, mask: u32) -> Result<Flow, ExecFault> {
    if let Op::Activemask { d } = op {
        let group = u64::from(w.group);
        for_lanes!(mask, |lane| {
            w.set(*d, lane, group);
        });
        return Ok(Flow::Next);
    }
    let Op::Warp { c, mask: member } = op else {
        return Ok(Flow::Next);
    };
    let mut members = [0u32; 32];
    let mut wanted = 0u32;
    for_lanes!(mask, |lane| {
        members[lane] = w.get(*member, lane) as u32;
        wanted |= members[lane];
    });
    let Some(lanes) = gather(w, mask, wanted) else {
        return Ok(Flow::Reschedule);
    };
    // Lanes that joined from waiting read their own masks.
    for_lanes!(lanes & !mask, |lane| {
        members[lane] = w.get(*member, lane) as u32;
    });
    let partners = partners(lanes, &members);
    match *c {
        Collective::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
        } => shfl(w, lanes, &partners, mode, [d, p], [a, b, c]),
        Collective::WarpSync => for_lanes!(lanes, |lane| {
            w.syncwarps[lane] += 1;
        }),
        ref other => {
            let (d, p, a) = match *other {
                Collective::Vote { d, a, .. }
                | Collective::MatchAny { d, a, .. }
                | Collective::Redux { d, a, .. } => (d, SINK, Some(a)),
                Collective::MatchAll { d, p, a, .. } => (d, p, Some(a)),
                Collective::Elect { d, p } => (d, p, None),
                _ => return Ok(Flow::Next),
            };
            let mut offered = [0u64; 32];
            if let Some(a) = a {
                for_lanes!(lanes, |lane| {
                    offered[lane] = collective_offer(other, w.get(a, lane));
                });
            }
            for_lanes!(lanes, |lane| {
                let (x, y) =
                    collective_result(other, members[lane], &offered, partners[lane], lane);
                w.set(d, lane, x);
                w.set(p, lane, y);
            });
        }
    }
    Ok(Flow::Next)
}

/// What a lane offers to collective `c` (any but `shfl`) from its operand's value `raw`: a
/// vote's predicate bit, a match's value at its width, a reduction's low 32 bits.
pub fn collective_offer(c: &Collective, raw: u64) -> u64 {
    match *c {
        Collective::Vote { .. } => raw & 1,
        Collective::MatchAny { bits, .. } | Collective::MatchAll { bits, .. } if bits < 64 => {
            raw & ((1u64 << bits) - 1)
        }
        Collective::MatchAny { .. } | Collective::MatchAll { .. } => raw,
        Collective::Redux { .. } => raw & 0xffff_ffff,
        _ => 0,
    }
}

/// Lane `lane`'s results `(d, p)` of collective `c` (any but `shfl`) combining the lanes of
/// `lanes` (the lane's partners, [`partners`]), given what each offered ([`collective_offer`])
/// and the lane's member mask `member`.
/// The interpreter's semantics, and what compiled code calls once a whole warp has offered.
pub fn collective_result(
    c: &Collective,
    member: u32,
    offered: &[u64; 32],
    lanes: u32,
    lane: usize,
) -> (u64, u64) {
    let each = |f: &mut dyn FnMut(usize)| {
        for l in 0..32 {
            if lanes & (1 << l) != 0 {
                f(l);
            }
        }
    };
    match *c {
        Collective::Vote { mode, uni, .. } => {
            let mut ballot = 0u32;
            each(&mut |l| ballot |= u32::from(offered[l] != 0) << l);
            let v = if uni {
                u64::from(ballot == 0 || ballot == lanes)
            } else {
                match mode {
                    VoteMode::All => u64::from(ballot == lanes),
                    VoteMode::Any => u64::from(ballot != 0),
                    VoteMode::Ballot => u64::from(ballot),
                }
            };
            (v, 0)
        }
        Collective::MatchAny { .. } => {
            let mut same = 0u32;
            each(&mut |l| same |= u32::from(offered[l] == offered[lane]) << l);
            (u64::from(same), 0)
        }
        Collective::MatchAll { .. } => {
            let first = offered[lanes.trailing_zeros().min(31) as usize];
            let mut all = true;
            each(&mut |l| all &= offered[l] == first);
            (if all { u64::from(lanes) } else { 0 }, u64::from(all))
        }
        Collective::Redux { op, signed, .. } => {
            let mut acc: Option<u64> = None;
            each(&mut |l| {
                let v = offered[l];
                acc = Some(match acc {
                    None => v,
                    Some(x) => match op {
                        IrOp::Add => (x + v) & 0xffff_ffff,
                        IrOp::And => x & v,
                        IrOp::Or => x | v,
                        IrOp::Xor => x ^ v,
                        IrOp::Min if signed => {
                            ((x as u32 as i32).min(v as u32 as i32)) as u32 as u64
                        }
                        IrOp::Max if signed => {
                            ((x as u32 as i32).max(v as u32 as i32)) as u32 as u64
                        }
                        IrOp::Min => x.min(v),
                        _ => x.max(v),
                    },
                });
            });
            (acc.unwrap_or(0), 0)
        }
        Collective::Elect { .. } => {
            let leader = if lanes & member == 0 {
                lanes.trailing_zeros()
            } else {
                (lanes & member).trailing_zeros().min(31)
            };
            (u64::from(leader), u64::from(lane as u32 == leader))
        }
        Collective::Shfl { .. } | Collective::WarpSync => (0, 0),
    }
}

/// Runs a `shfl` for `lanes`: a lane reads its source lane's value when that lane is one of its
/// partners (it executed this same instruction), 0 when the source lane is in range but
/// diverged away, exited or stayed outside the member mask (what NVIDIA's hardware returns,
/// `scripts/gpu/probes/collective_probe.h200.txt`), and its own value when out of range.
fn shfl(
    w: &mut Warp,
    lanes: u32,
    partners: &[u32; 32],
    mode: ShuffleMode,
    [d, p]: [u32; 2],
    [a, b, c]: [Src; 3],
) {
    // Every lane's source value, read before any destination is written.
    let mut values = [0u64; 32];
    for_lanes!(lanes, |lane| {
        values[lane] = w.get(a, lane) & 0xffff_ffff;
    });
    for_lanes!(lanes, |lane| {
        let (src, ok) = shuffle_source(mode, lane, w.get(b, lane), w.get(c, lane));
        let value = if partners[lane] & (1 << src) != 0 {
            values[src]
        } else {
            0
        };
        w.set(d, lane, value);
        w.set(p, lane, u64::from(ok));
    });
}

/// The lane `lane` of a `shfl` reads from, given its `b` and `c` operands, and whether that lane
/// is in range (the predicate result; out of range, the lane reads its own value).
pub fn shuffle_source(mode: ShuffleMode, lane: usize, b: u64, c: u64) -> (usize, bool) {
    let bval = (b & 0x1f) as i32;
    let clamp = (c & 0x1f) as i32;
    let seg = ((c >> 8) & 0x1f) as i32;
    let me = lane as i32;
    let max_lane = (me & seg) | (clamp & !seg);
    let min_lane = me & seg;
    let (j, ok) = match mode {
        ShuffleMode::Up => (me - bval, me - bval >= max_lane),
        ShuffleMode::Down => (me + bval, me + bval <= max_lane),
        ShuffleMode::Bfly => (me ^ bval, (me ^ bval) <= max_lane),
        ShuffleMode::Idx => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    let src = if ok && (0..32).contains(&j) {
        j as usize
    } else {
        lane
    };
    (src, ok)
}
