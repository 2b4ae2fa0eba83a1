//! The regions between wait points (barriers and shuffles) of the vector function: from one
//! group to the next without the group loop's dispatch, and the registers a region leaves in
//! the group's saved layout.
//!
//! Between two barriers (or shuffles) every group of a block usually runs the same region:
//! the groups stood at the same wait point when the phase began, and each reaches the same
//! next one. After a group saves itself at a wait point, the next group's four states are
//! compared with the states of the entries from which that wait point can be reached (a
//! walk over the kernel that stops at every barrier and shuffle, `reach`): one equal, the
//! next group goes straight to that entry's trusted resume (its registers restored in the
//! group's own layout), with no pass through the loop head's checks of the states (exited,
//! waiting, marked, agreed) and its jump table. Any other state takes the loop head, as
//! before. In a kernel with shuffles a chain stays within a warp: after a warp's last group
//! the loop head's step releases the warp (`shuffle.rs`).
//!
//! In a kernel without warp collectives that is not cooperative, the block's last group
//! waiting at a barrier ends the phase, and the call goes on with the next one (group 0,
//! straight to its trusted resume when it waits at the same barrier) instead of returning to
//! the host, which would only call it again: a block runs from its start to its end in one
//! call unless a group goes to the scalar code.
//!
//! A value live across several barriers that a region does not touch (the tile scan's four
//! prefix values, carried through its seventeen barriers) is not loaded at the region's
//! resume nor stored at its wait ([`untouched`]): it stays where the group saved it, and
//! only the region's exits to the scalar code load it from there.

use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

use chevron_ptx::lowered::{Inst, Op, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, MemFlagsData, Value};

use super::plan::Plan;
use super::VectorEmitter;
use crate::codegen::mem;
use crate::context::{BlockContext, VECTOR_SAVED};

/// At most this many entries are compared before the loop head takes over.
const MAX_ENTRIES: usize = 3;

/// The regions between wait points: where each entry (a barrier's resume point or a
/// shuffle, by resume state) leads before the next wait.
#[derive(Default)]
pub(super) struct Regions {
    /// Per wait point (the resume state a group waits with), the entries from which a group
    /// reaches it without passing another wait point.
    pub reach: BTreeMap<u32, BTreeSet<u32>>,
    /// Per entry, the instructions a group runs from it up to (and with) the wait points it
    /// reaches; a shuffle entry's region holds its shuffle.
    pub region: BTreeMap<u32, BTreeSet<usize>>,
    /// Per entry, the instructions at which it saves at a wait point (a barrier's resume point,
    /// a shuffle).
    pub waits: BTreeMap<u32, BTreeSet<usize>>,
}

/// The regions of `insts` (a walk from every entry that stops at every barrier and shuffle).
pub(super) fn regions(
    insts: &[Inst],
    barriers: &BTreeMap<usize, u32>,
    shuffles: &BTreeMap<usize, u32>,
) -> Regions {
    let n = insts.len();
    // The start is entry 0 (its resume state).
    let starts = std::iter::once((0, 0))
        .chain(barriers.iter().map(|(&pc, &id)| (pc, id)))
        .chain(shuffles.iter().map(|(&pc, &id)| (pc + 1, id)));
    let mut out = Regions::default();
    for (start, entry) in starts {
        let mut seen = BTreeSet::new();
        let mut waits = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(pc) = stack.pop() {
            if pc >= n || !seen.insert(pc) {
                continue;
            }
            let inst = &insts[pc];
            let wait = match inst.op {
                Op::Bar { .. } => barriers.get(&(pc + 1)).map(|id| (pc + 1, id)),
                Op::Warp { .. } => shuffles.get(&pc).map(|id| (pc, id)),
                _ => None,
            };
            match wait {
                Some((at, &id)) => {
                    out.reach.entry(id).or_default().insert(entry);
                    waits.insert(at);
                    if inst.guard.is_some() {
                        stack.push(pc + 1);
                    }
                }
                None => stack.extend(inst.successors(pc, n)),
            }
        }
        // A shuffle's resume finishes the shuffle (reads its lane operands, writes its result).
        if shuffles.get(&start.wrapping_sub(1)) == Some(&entry) {
            seen.insert(start - 1);
        }
        out.region.insert(entry, seen);
        out.waits.insert(entry, waits);
    }
    out
}

/// Per entry (resume state; `at`: the instruction its resume restores at), the registers a
/// group keeps in its saved layout through the region: live at the entry, read and written
/// by no instruction of the region, of the same shape at every instruction of it and at the
/// wait points it reaches, and so for every other entry whose region shares an instruction
/// where the register is live (the start keeps none), so that wherever such a register is
/// live, every way there kept it. Its resume does not load them, its waits do not store them
/// again, its exits load them from the saved layout, and a resume of the group from the
/// scalar code's layout stores them in the group's.
///
/// With `reads` false: the registers no instruction of the region writes (its reads
/// allowed), which its waits need not store again either (no agreement between regions is
/// needed: their resumes load them).
pub(super) fn untouched(
    insts: &[Inst],
    plan: &Plan,
    regions: &Regions,
    at: &BTreeMap<u32, usize>,
    reads: bool,
) -> BTreeMap<u32, BTreeSet<u32>> {
    let registers = plan.widths.len() as u32;
    let mut out: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (&entry, region) in &regions.region {
        let Some(&start) = at.get(&entry) else {
            out.insert(entry, BTreeSet::new());
            continue;
        };
        let mut keep: BTreeSet<u32> = (0..registers)
            .filter(|&r| plan.live.is_live(start, r))
            .collect();
        for &pc in region {
            let ops = insts[pc].operands();
            for s in ops.reads.iter().filter(|_| reads) {
                if let Src::Reg(r) = s {
                    keep.remove(r);
                }
            }
            for r in &ops.writes {
                keep.remove(r);
            }
        }
        let waits = regions.waits.get(&entry).cloned().unwrap_or_default();
        let shape = |pc: usize, r: u32| plan.shapes.of(pc, &Src::Reg(r));
        // A register not written keeps its shape where it is live; where it is dead its shape
        // is whatever came last, which matters only to a resume that loads it.
        let dead = |pc: usize, r: u32| !reads && !waits.contains(&pc) && !plan.live.is_live(pc, r);
        for &pc in region.iter().chain(&waits) {
            keep.retain(|&r| dead(pc, r) || shape(pc, r) == shape(start, r));
        }
        out.insert(entry, keep);
    }
    // Regions that meet agree on the registers live where they meet.
    let mut changed = reads;
    while changed {
        changed = false;
        for (a, region_a) in &regions.region {
            for (b, region_b) in &regions.region {
                if a == b {
                    continue;
                }
                let shared: Vec<usize> = region_a.intersection(region_b).copied().collect();
                if shared.is_empty() {
                    continue;
                }
                let theirs = out[b].clone();
                let ours = out.get_mut(a).expect("every region has a set");
                let before = ours.len();
                ours.retain(|&r| {
                    theirs.contains(&r) || !shared.iter().any(|&pc| plan.live.is_live(pc, r))
                });
                changed |= ours.len() != before;
            }
        }
    }
    out
}

impl VectorEmitter<'_, '_, '_> {
    /// The group has saved itself waiting with resume state `wait`: the next group, straight
    /// to its entry's resume when its states name one from which `wait` is reached, else
    /// through the loop head. After the block's last group, in a kernel that [`wraps`], the
    /// next phase ([`next_phase`]).
    ///
    /// [`wraps`]: Self::wraps
    /// [`next_phase`]: Self::next_phase
    pub(super) fn chain(&mut self, wait: u32) {
        // The wait's own entry first: in a loop around a barrier (a shared tree's levels) the
        // next group stands where this one waits now.
        let mut reach: Vec<u32> = (self.regions.reach.get(&wait).into_iter().flatten())
            .copied()
            .collect();
        reach.sort_by_key(|&id| id != wait);
        let entries: Vec<(u32, Block)> = (reach.iter())
            .filter_map(|id| Some((*id, *self.entries.get(id)?)))
            .take(MAX_ENTRIES)
            .collect();
        let wraps = self.wraps();
        if entries.is_empty() && !wraps {
            self.b.ins().jump(self.next_group, &[]);
            return;
        }
        let g = self.b.use_var(self.group);
        let next = self.b.ins().iadd_imm_u(g, 1);
        let more = if self.shuffle_ids.is_empty() {
            let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
            let shift = self.log_width();
            let groups = self.b.ins().ushr_imm_u(threads, shift);
            self.b.ins().icmp(IntCC::UnsignedLessThan, next, groups)
        } else {
            // Within the warp (blocks of whole warps: its last group's next is a multiple of
            // eight, and so is the block's end).
            let lane = self.b.ins().band_imm_u(next, 7);
            self.b.ins().icmp_imm_u(IntCC::NotEqual, lane, 0)
        };
        let compare = self.b.create_block();
        let last = if wraps {
            self.b.create_block()
        } else {
            self.next_group
        };
        self.b.ins().brif(more, compare, &[], last, &[]);
        if wraps {
            self.b.switch_to_block(last);
            self.next_phase(wait);
        }
        self.b.switch_to_block(compare);
        self.go_to_entry(next, &entries);
        self.b.ins().jump(self.next_group, &[]);
    }

    /// Group `next` (its states loaded from the block's), straight to the block of the first
    /// of `entries` (resume state, trusted resume) its states all name; else the code goes on
    /// where this leaves it (the group variable unchanged).
    fn go_to_entry(&mut self, next: Value, entries: &[(u32, Block)]) {
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, resume));
        let shift = self.log_width() + 2;
        let at = self.b.ins().ishl_imm_u(next, shift);
        let slot = self.b.ins().iadd(base, at);
        let states = self.b.ins().load(types::I32X4, mem(), slot, 0);
        for &(id, block) in entries {
            let state = self
                .b
                .ins()
                .iconst(types::I32, i64::from((id | VECTOR_SAVED) as i32));
            let state = self.b.ins().splat(types::I32X4, state);
            let same = self.all_equal(slot, states, state);
            let go = self.b.create_block();
            let no = self.b.create_block();
            self.b.ins().brif(same, go, &[], no, &[]);
            self.b.switch_to_block(go);
            self.b.def_var(self.group, next);
            self.b.ins().jump(block, &[]);
            self.b.switch_to_block(no);
        }
    }

    /// Whether the block's last group saving itself at a barrier goes on with the next phase
    /// in the same call: in a kernel without warp collectives (whose host releases a phase's
    /// waits with no pass over the states) that is not cooperative (whose blocks take turns
    /// at spin loops, and whose host looks at yields between phases).
    fn wraps(&self) -> bool {
        !self.collectives && self.t.plan.handed.is_empty()
    }

    /// The block's last group has saved itself at the barrier of resume state `wait`: the phase
    /// is over, and every thread that has not exited waits at a barrier. What the host would
    /// do before calling this function again, it does here: the phase's mark taken
    /// ([`BlockContext::barrier_waits`]), the groups the call runs again counted
    /// ([`BlockContext::warp_reruns`]), fuel as a new call has it; then group 0, straight to
    /// `wait`'s resume when it waits there (as it usually does), else through the loop head.
    fn next_phase(&mut self, wait: u32) {
        let zero = self.b.ins().iconst(types::I64, 0);
        let flags = MemFlagsData::trusted();
        let waits = offset_of!(BlockContext, barrier_waits) as i32;
        self.b.ins().store(flags, zero, self.ctx, waits);
        let reruns = offset_of!(BlockContext, warp_reruns) as i32;
        let counted = self.b.ins().load(types::I64, flags, self.ctx, reruns);
        let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
        let shift = self.log_width();
        let groups = self.b.ins().ushr_imm_u(threads, shift);
        let counted = self.b.ins().iadd(counted, groups);
        self.b.ins().store(flags, counted, self.ctx, reruns);
        let fuel = self.load_fixed(types::I64, offset_of!(BlockContext, fuel));
        self.b.def_var(self.fuel, fuel);
        let entry: Vec<(u32, Block)> = self
            .entries
            .get(&wait)
            .map(|&b| (wait, b))
            .into_iter()
            .collect();
        self.go_to_entry(zero, &entry);
        self.b.def_var(self.group, zero);
        self.b.ins().jump(self.head, &[]);
    }
}
