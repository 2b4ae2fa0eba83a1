//! From one group to the next at a barrier or a shuffle without the group loop's dispatch.
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

use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

use chevron_ptx::lowered::{Inst, Op};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder};

use super::VectorEmitter;
use crate::codegen::mem;
use crate::context::{BlockContext, VECTOR_SAVED};

/// At most this many entries are compared before the loop head takes over.
const MAX_ENTRIES: usize = 3;

/// For each wait point (the resume state a group waits with: a barrier's resume point or a
/// shuffle), the entries (barrier resume points and shuffles, by resume state) from which a
/// group can reach it without passing another wait point.
pub(super) fn reach(
    insts: &[Inst],
    barriers: &BTreeMap<usize, u32>,
    shuffles: &BTreeMap<usize, u32>,
) -> BTreeMap<u32, BTreeSet<u32>> {
    let n = insts.len();
    let starts = barriers
        .iter()
        .map(|(&pc, &id)| (pc, id))
        .chain(shuffles.iter().map(|(&pc, &id)| (pc + 1, id)));
    let mut reach: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (start, entry) in starts {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(pc) = stack.pop() {
            if pc >= n || !seen.insert(pc) {
                continue;
            }
            let inst = &insts[pc];
            let wait = match inst.op {
                Op::Bar { .. } => barriers.get(&(pc + 1)),
                Op::Warp { .. } => shuffles.get(&pc),
                _ => None,
            };
            match wait {
                Some(&id) => {
                    reach.entry(id).or_default().insert(entry);
                    if inst.guard.is_some() {
                        stack.push(pc + 1);
                    }
                }
                None => stack.extend(inst.successors(pc, n)),
            }
        }
    }
    reach
}

impl VectorEmitter<'_, '_, '_> {
    /// The group has saved itself waiting with resume state `wait`: the next group, straight
    /// to its entry's resume when its states name one from which `wait` is reached, else
    /// through the loop head.
    pub(super) fn chain(&mut self, wait: u32) {
        let entries: Vec<(u32, Block)> = (self.reach.get(&wait).into_iter().flatten())
            .filter_map(|id| Some((*id, *self.entries.get(id)?)))
            .take(MAX_ENTRIES)
            .collect();
        if entries.is_empty() {
            self.b.ins().jump(self.next_group, &[]);
            return;
        }
        let g = self.b.use_var(self.group);
        let next = self.b.ins().iadd_imm_u(g, 1);
        let more = if self.shuffle_ids.is_empty() {
            let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
            let groups = self.b.ins().ushr_imm_u(threads, 2);
            self.b.ins().icmp(IntCC::UnsignedLessThan, next, groups)
        } else {
            // Within the warp (blocks of whole warps: its last group's next is a multiple of
            // eight, and so is the block's end).
            let lane = self.b.ins().band_imm_u(next, 7);
            self.b.ins().icmp_imm_u(IntCC::NotEqual, lane, 0)
        };
        let compare = self.b.create_block();
        self.b.ins().brif(more, compare, &[], self.next_group, &[]);
        self.b.switch_to_block(compare);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, resume));
        let at = self.b.ins().ishl_imm_u(next, 4);
        let slot = self.b.ins().iadd(base, at);
        let states = self.b.ins().load(types::I32X4, mem(), slot, 0);
        for (id, block) in entries {
            let state = self
                .b
                .ins()
                .iconst(types::I32, i64::from((id | VECTOR_SAVED) as i32));
            let state = self.b.ins().splat(types::I32X4, state);
            let same = self.b.ins().icmp(IntCC::Equal, states, state);
            let same = self.b.ins().vall_true(same);
            let go = self.b.create_block();
            let otherwise = self.b.create_block();
            self.b.ins().brif(same, go, &[], otherwise, &[]);
            self.b.switch_to_block(go);
            self.b.def_var(self.group, next);
            self.b.ins().jump(block, &[]);
            self.b.switch_to_block(otherwise);
        }
        self.b.ins().jump(self.next_group, &[]);
    }
}
