//! `activemask` (`__activemask()`) after no loop, compiled as a ballot of the whole warp.
//!
//! The interpreter gives the lanes of the warp that run the instruction together (its group,
//! `interp/warp.rs`: at every branch it picks the lanes of the lowest program counter, and
//! lanes further on join them when they get there; only lanes that loop a few hundred times
//! let the lanes furthest ahead go first). When neither the instruction nor any instruction
//! that leads to it is on a loop, each lane runs it at most once, and when all 32 lanes of a
//! warp get to it, none gets there before a lane behind it that still comes (that lane's
//! program counter is lower), so they run it together and get the whole warp. Compiled, it is
//! `vote.sync.ballot.b32 d, 1, 0xffffffff`: every lane waits there for its warp and gets
//! `0xffffffff`; a warp whose lanes do not all get there (some exited, or wait elsewhere) sends
//! its block to the interpreter, as at any collective, which then gives its partial masks.
//! In or after a loop, a lane may meet its warp's lanes of another iteration, or lanes the
//! interpreter let go first: such an `activemask` (and a predicated one) stays interpreted.

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::ir::VoteMode;
use chevron_ptx::lowered::{Collective, Inst, Op, Src};

/// A copy of `code` with every unpredicated `activemask` after no loop a full-warp ballot of
/// true, if it has any.
pub(crate) fn as_ballots(code: &FunctionCode) -> Option<FunctionCode> {
    let insts = &code.insts;
    let outside_loops: Vec<usize> = (0..insts.len())
        .filter(|&pc| {
            matches!(insts[pc].op, Op::Activemask { .. })
                && insts[pc].guard.is_none()
                && !behind_a_loop(insts, pc)
        })
        .collect();
    if outside_loops.is_empty() {
        return None;
    }
    let mut rewritten = insts.clone();
    for pc in outside_loops {
        if let Op::Activemask { d } = rewritten[pc].op {
            rewritten[pc].op = Op::Warp {
                c: Collective::Vote {
                    mode: VoteMode::Ballot,
                    uni: false,
                    d,
                    a: Src::Imm(1),
                },
                mask: Src::Imm(0xffff_ffff),
            };
        }
    }
    Some(super::with_instructions(
        code,
        rewritten,
        code.num_regs,
        code.carry_reg,
    ))
}

/// Whether instruction `pc` of `insts` or one that can reach it may run twice in a thread:
/// some branch between two of them (`pc` included) goes back (every cycle has such a branch).
fn behind_a_loop(insts: &[Inst], pc: usize) -> bool {
    let n = insts.len();
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (at, inst) in insts.iter().enumerate() {
        for next in inst.successors(at, n).into_iter().filter(|&next| next < n) {
            before[next].push(at);
        }
    }
    let mut reaches = vec![false; n];
    reaches[pc] = true;
    let mut stack = vec![pc];
    while let Some(at) = stack.pop() {
        for &from in &before[at] {
            if !reaches[from] {
                reaches[from] = true;
                stack.push(from);
            }
        }
    }
    (0..n)
        .filter(|&at| reaches[at])
        .any(|at| (insts[at].successors(at, n).into_iter()).any(|next| next <= at && reaches[next]))
}
