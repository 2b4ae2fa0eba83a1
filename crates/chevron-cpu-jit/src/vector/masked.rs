//! A group that parts at a forward branch over a short straight region stays in the vector
//! code: the region's arithmetic runs for all the group's threads, its loads and its store
//! for the threads that do not branch, each at its own address, checked first (a thread that
//! branches reads a slot of the function's own instead and stores to it, so its address is
//! never touched). Two kinds of region qualify:
//!
//! - one whose only effect is its last instruction, a store, and whose registers are dead at
//!   the branch and at its target (a reduction's `if (tid < s) cache[tid] += cache[tid + s]`,
//!   a warp reduction's lane-0 store);
//! - one that writes registers live at its target (a scan's `add = t >= offset ?
//!   totals[t - offset] : 0`, nvcc's `mov %r, 0; @p bra L; ld.shared %r, [..]; L:`): every
//!   access's address is known at the branch (no register of the region feeds it) and no
//!   other instruction of it may leave the vector code, so all the checks run before the
//!   region writes anything; after it, each register it wrote that is live at the target
//!   takes the region's value in the threads that ran it and keeps its old value in the
//!   others (a select per vector).
//!
//! Either way nothing is stored and no register live at the branch is written before every
//! check passed, so a check that fails hands the group over at the branch itself, where the
//! scalar code takes it thread by thread.

use std::collections::{BTreeMap, BTreeSet};

use chevron_ptx::lowered::{Addr, AddrBase, Flow, Op, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, Vars, VectorEmitter};

/// The most instructions a masked region holds.
const REGION: usize = 8;

/// Which kind of masked region a branch skips (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Ends in its one store; writes only registers dead at the branch and at its target.
    Store,
    /// Its accesses' addresses known at the branch; the registers it writes that are live at
    /// its target keep their old values in the threads that branch.
    Blend,
}

impl VectorEmitter<'_, '_, '_> {
    /// Whether the branch at `pc` to `target` skips a region [`masked_region`] can run (at most
    /// [`REGION`] unguarded instructions that nothing else jumps into, of one of the kinds the
    /// module docs name).
    ///
    /// [`masked_region`]: Self::masked_region
    pub(super) fn runs_masked(&self, pc: usize, target: usize) -> bool {
        self.masked_kind(pc, target).is_some()
    }

    /// The kind of region the branch at `pc` to `target` skips, if it is one.
    fn masked_kind(&self, pc: usize, target: usize) -> Option<Kind> {
        let insts = &self.t.code.insts;
        if target <= pc + 1 || target - pc - 1 > REGION || target > insts.len() {
            return None;
        }
        let plan = self.t.plan;
        let live_at_target = |r: u32| target < insts.len() && plan.live.is_live(target, r);
        let (mut store, mut blend) = (true, true);
        // The registers the region has written so far, and where each was written last.
        let mut written = BTreeMap::new();
        for (i, inst) in insts.iter().enumerate().take(target).skip(pc + 1) {
            let operands = inst.operands();
            if inst.guard.is_some()
                || self.targets.contains(&i)
                || operands.flow != Flow::Next
                || operands.meets.is_some()
            {
                return None;
            }
            let last = i + 1 == target;
            // An address no register of the region feeds: known at the branch.
            let early = |addr: &Addr| match addr.base {
                AddrBase::Reg(r) => !written.contains_key(&r),
                _ => true,
            };
            match &inst.op {
                Op::St { space, addr, .. }
                    if last && memory(*space, addr) && super::elements::plain(&inst.op) =>
                {
                    blend &= early(addr);
                }
                Op::Ld {
                    space, addr, ds, ..
                } if memory(*space, addr) && super::elements::plain(&inst.op) => {
                    let varying = plan.shapes.defs[i] == Shape::Varying;
                    store &= !last && (varying || self.uniform_address(i, addr));
                    blend &= varying && early(addr);
                }
                Op::St { .. } | Op::Ld { .. } | Op::Atom { .. } | Op::Warp { .. } => return None,
                Op::Bar { .. } | Op::Bra { .. } | Op::Ret | Op::Exit => return None,
                // Arithmetic; in a blended region, none that may leave the vector code.
                _ => {
                    store &= !last;
                    blend &= !plan.exits.contains(&i);
                }
            }
            for &r in &operands.writes {
                store &= !plan.live.is_live(pc, r) && !live_at_target(r);
                written.insert(r, i);
            }
        }
        // A register live at the target holds the region's value in its varying form there.
        blend &= written.iter().all(|(&r, &i)| {
            !live_at_target(r)
                || (plan.shapes.defs[i] == Shape::Varying
                    && plan.shapes.of(target, &Src::Reg(r)) == Shape::Varying)
        });
        match (store, blend) {
            (true, _) => Some(Kind::Store),
            (false, true) => Some(Kind::Blend),
            _ => None,
        }
    }

    /// The region after the branch at `pc` (to `target`) for the group whose predicate lanes
    /// `preds` (0 or 1, an `i32x4` per four threads) parted: the threads whose bit is
    /// `run_when` load and store; then `target`.
    pub(super) fn masked_region(
        &mut self,
        pc: usize,
        preds: &[Value],
        run_when: bool,
        target: usize,
    ) {
        let kind = self.masked_kind(pc, target).expect("a masked region");
        let cc = if run_when {
            IntCC::NotEqual
        } else {
            IntCC::Equal
        };
        let active: Vec<Value> = (0..self.group_width())
            .map(|lane| {
                let p = self
                    .b
                    .ins()
                    .extractlane(preds[usize::from(lane / 4)], lane % 4);
                let bit = self.b.ins().band_imm_u(p, 1);
                self.b.ins().icmp_imm_u(cc, bit, 0)
            })
            .collect();
        let here = self.pc;
        self.exit_at = Some(pc);
        self.checked.clear();
        // A blended region: its registers' old values and every access's addresses (all
        // checked) before it writes anything.
        let mut hosts = BTreeMap::new();
        let mut old = Vec::new();
        if kind == Kind::Blend {
            old = self.blended(pc, target);
            for i in pc + 1..target {
                self.pc = i;
                if let Op::Ld {
                    space, bits, addr, ..
                }
                | Op::St {
                    space, bits, addr, ..
                } = self.t.code.insts[i].op.clone()
                {
                    hosts.insert(i, self.active_hosts(i, space, &addr, bits, &active));
                }
            }
        }
        for i in pc + 1..target {
            self.pc = i;
            let next = self.b.create_block();
            self.b.set_cold_block(next);
            match self.t.code.insts[i].op.clone() {
                // One element for all: read as usual (a thread that runs the region reads it).
                Op::Ld { addr, .. } if kind == Kind::Store && self.uniform_address(i, &addr) => {
                    self.operation(i, next)
                }
                Op::Ld {
                    space,
                    bits,
                    ds,
                    addr,
                    ..
                } => {
                    let ty = if bits == 64 { types::I64 } else { types::I32 };
                    let hosts = match hosts.remove(&i) {
                        Some(hosts) => hosts,
                        None => self.active_hosts(i, space, &addr, bits, &active),
                    };
                    let values: Vec<Value> = (hosts.iter())
                        .map(|&at| self.b.ins().load(ty, mem(), at, 0))
                        .collect();
                    if self.width(ds[0]) == Width::W64 {
                        self.set_lanes(ds[0], &values);
                    } else {
                        for (j, four) in values.chunks(4).enumerate() {
                            let v = self.gather(four);
                            self.set(ds[0], Lane::Vector(j as u8), v);
                        }
                    }
                    self.b.ins().jump(next, &[]);
                }
                Op::St {
                    space,
                    bits,
                    addr,
                    srcs,
                } => {
                    let hosts = match hosts.remove(&i) {
                        Some(hosts) => hosts,
                        None => self.active_hosts(i, space, &addr, bits, &active),
                    };
                    for (lane, &at) in hosts.iter().enumerate() {
                        let v = if bits == 64 {
                            self.lane64(srcs[0], lane as u8)
                        } else {
                            self.lane32(srcs[0], lane as u8)
                        };
                        self.b.ins().store(mem(), v, at, 0);
                    }
                    self.b.ins().jump(next, &[]);
                }
                _ => self.operation(i, next),
            }
            self.b.switch_to_block(next);
        }
        self.blend(&old, preds, cc, &active);
        self.exit_at = None;
        self.checked.clear();
        self.pc = here;
        self.jump_to_pc(target);
    }

    /// Each thread's host address of an access of `bits` at `addr` (instruction `i`): the
    /// element for an active thread, all of them checked (else the group leaves at the
    /// branch), and a slot of the function's own for the others.
    fn active_hosts(
        &mut self,
        i: usize,
        space: Space,
        addr: &Addr,
        bits: u8,
        active: &[Value],
    ) -> Vec<Value> {
        let scratch =
            (self.b).create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let scratch = self.b.ins().stack_addr(types::I64, scratch, 0);
        let shift = if bits == 64 { 3 } else { 2 };
        self.lane_hosts_of(i, space, addr, shift, Some((active, scratch)))
    }
}

/// A register a blended region writes that is live at its target, with its values at the
/// branch.
enum Old {
    /// 32 bits: an `i32x4` per four threads.
    Vectors(u32, Vec<Value>),
    /// 64 bits: an `i64` per thread.
    Lanes(u32, Vec<Value>),
}

impl VectorEmitter<'_, '_, '_> {
    /// The registers the region after the branch at `pc` (to `target`) writes that are live
    /// at `target`, with their values at the branch (as they are held, NaNs untouched).
    fn blended(&mut self, pc: usize, target: usize) -> Vec<Old> {
        let insts = &self.t.code.insts;
        let live = &self.t.plan.live;
        let registers: BTreeSet<u32> = (pc + 1..target)
            .flat_map(|i| insts[i].operands().writes)
            .filter(|&r| target < insts.len() && live.is_live(target, r))
            .collect();
        self.pc = pc;
        let raw = std::mem::replace(&mut self.raw, true);
        let old = (registers.into_iter())
            .map(|r| match self.width(r) {
                Width::W32 => {
                    Old::Vectors(r, (0..self.p).map(|j| self.vec32(Src::Reg(r), j)).collect())
                }
                Width::W64 => Old::Lanes(
                    r,
                    (0..self.group_width())
                        .map(|lane| self.lane64(Src::Reg(r), lane))
                        .collect(),
                ),
            })
            .collect();
        self.raw = raw;
        old
    }

    /// After a blended region: each register of `old` keeps the region's value in the threads
    /// that ran it (their predicate bit in `preds` compares with 0 as `cc` says; `active`:
    /// a flag per thread) and its old value in the others.
    fn blend(&mut self, old: &[Old], preds: &[Value], cc: IntCC, active: &[Value]) {
        if old.is_empty() {
            return;
        }
        let (zero, one) = (self.vconst([0; 4]), self.vconst([1; 4]));
        let masks: Vec<Value> = (preds.iter())
            .map(|&p| {
                let bit = self.b.ins().band(p, one);
                self.b.ins().icmp(cc, bit, zero)
            })
            .collect();
        for o in old {
            let (r, was, selects) = match o {
                Old::Vectors(r, was) => (*r, was, &masks),
                Old::Lanes(r, was) => (*r, was, &active.to_vec()),
            };
            let vars = match &self.vectors[r as usize] {
                Vars::Vec32(vars) | Vars::Lanes64(vars) => vars.clone(),
                Vars::Scalar(_) => continue,
            };
            for ((&var, &was), &on) in vars.iter().zip(was).zip(selects) {
                let new = self.b.use_var(var);
                let v = if matches!(o, Old::Vectors(..)) {
                    self.b.ins().bitselect(on, new, was)
                } else {
                    self.b.ins().select(on, new, was)
                };
                self.b.def_var(var, v);
            }
        }
    }
}

impl VectorEmitter<'_, '_, '_> {
    /// Whether the address of access `i` is the same in all the group's threads.
    fn uniform_address(&self, i: usize, addr: &Addr) -> bool {
        match addr.base {
            AddrBase::Reg(r) => self.t.plan.shapes.of(i, &Src::Reg(r)) == Shape::Uniform,
            _ => true,
        }
    }
}

/// Whether an access of `space` through `addr` is one a masked region makes: shared or global
/// memory through a register.
fn memory(space: Space, addr: &Addr) -> bool {
    matches!(space, Space::Shared | Space::Global) && matches!(addr.base, AddrBase::Reg(_))
}
