//! A group's registers between the vector function and memory: saved at a wait point in the
//! group's own layout (only the vector function's trusted resume reads it), or at an exit in
//! each thread's slots as the scalar code keeps them; loaded again at a resume (checked
//! against their shapes when the scalar code saved them); and the registers a region leaves
//! in the saved layout (`chain.rs`), which its waits do not store again and its exits load.

use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

use chevron_ptx::lowered::Src;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{Vars, VectorEmitter};
use crate::codegen::mem;
use crate::context::BlockContext;

impl VectorEmitter<'_, '_, '_> {
    /// Address of lane `lane`'s saved registers.
    pub(super) fn lane_regs(&mut self, lane: i64) -> Value {
        let g = self.b.use_var(self.group);
        let shift = self.log_width();
        let t = self.b.ins().ishl_imm_u(g, shift);
        let t = self.b.ins().iadd_imm_u(t, lane);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, regs));
        let off = self
            .b
            .ins()
            .imul_imm_u(t, i64::from(self.t.code.num_regs) * 8);
        self.b.ins().iadd(base, off)
    }

    pub(super) fn live_at(&self, pc: usize) -> Vec<u32> {
        (0..self.scalars.len() as u32)
            .filter(|&r| self.t.plan.live.is_live(pc, r))
            .collect()
    }

    /// Stores the registers live at `pc` to each thread's slots, as the scalar code keeps them
    /// (a group leaving for the scalar code; one waiting at a barrier or a shuffle is saved in
    /// its own layout by [`save_group`](Self::save_group)).
    pub(super) fn save(&mut self, pc: usize) {
        let here = std::mem::replace(&mut self.pc, pc);
        let live = self.live_at(pc);
        // A varying 32-bit register's vectors (an accumulator's NaNs made canonical once for
        // four threads, not lane by lane).
        let mut vectors = BTreeMap::new();
        for &r in &live {
            if self.shape(Src::Reg(r)) == Shape::Varying && self.width(r) == Width::W32 {
                let v: Vec<Value> = (0..self.p).map(|j| self.vec32(Src::Reg(r), j)).collect();
                vectors.insert(r, v);
            }
        }
        for lane in 0..self.group_width() {
            let base = self.lane_regs(i64::from(lane));
            for &r in &live {
                let v = match vectors.get(&r) {
                    Some(v) => {
                        let x = self.b.ins().extractlane(v[usize::from(lane / 4)], lane % 4);
                        self.b.ins().uextend(types::I64, x)
                    }
                    None => self.lane64(Src::Reg(r), lane),
                };
                self.b.ins().store(mem(), v, base, 8 * r as i32);
            }
        }
        self.pc = here;
    }

    /// Stores the registers live at `pc` for a group waiting at a barrier or a shuffle
    /// ([`VECTOR_SAVED`]),
    /// which only this function's trusted resume ([`restore_group`](Self::restore_group))
    /// reads: in the group's own layout over its W threads' slots (`8W × num_regs` bytes),
    /// 8W bytes per register: an `i32x4` per four threads in one store each, W `i64`, or the
    /// one scalar of a uniform or affine register.
    ///
    /// A register no entry that reaches this wait point writes in its region
    /// (`chain::untouched`) is in that layout already and is not stored again.
    pub(super) fn save_group(&mut self, pc: usize, wait: u32) {
        let here = std::mem::replace(&mut self.pc, pc);
        let kept = self.kept_at(wait);
        let live: Vec<u32> = (self.live_at(pc).into_iter())
            .filter(|r| !kept.contains(r))
            .collect();
        self.store_group(&live);
        self.pc = here;
    }

    /// Stores registers `live` in the group's own layout (see
    /// [`save_group`](Self::save_group)).
    pub(super) fn store_group(&mut self, live: &[u32]) {
        let base = self.lane_regs(0);
        let size = 8 * i32::from(self.group_width());
        for &r in live {
            let at = size * r as i32;
            match self.vars_of(r) {
                Vars::Vec32(_) => {
                    for j in 0..self.p {
                        let v = self.vec32(Src::Reg(r), j);
                        self.b.ins().store(mem(), v, base, at + 16 * i32::from(j));
                    }
                }
                Vars::Lanes64(_) => {
                    for lane in 0..self.group_width() {
                        let v = self.lane64(Src::Reg(r), lane);
                        self.b.ins().store(mem(), v, base, at + 8 * i32::from(lane));
                    }
                }
                Vars::Scalar(_) => {
                    let v = match self.t.plan.widths[r as usize] {
                        Width::W32 => self.lane0_32(Src::Reg(r)),
                        Width::W64 => self.lane64(Src::Reg(r), 0),
                    };
                    self.b.ins().store(mem(), v, base, at);
                }
            }
        }
    }

    /// Loads what [`save_group`](Self::save_group) stored at `pc`, for a group coming in by
    /// the trusted entry `entry` (resume state): all but the registers its region leaves
    /// untouched.
    pub(super) fn restore_group(&mut self, pc: usize, entry: u32) {
        self.pc = pc;
        let untouched = self.untouched.get(&entry).cloned().unwrap_or_default();
        let live: Vec<u32> = (self.live_at(pc).into_iter())
            .filter(|r| !untouched.contains(r))
            .collect();
        for (r, v) in self.load_group(&live) {
            self.def_vars(r, &v);
        }
    }

    /// Registers `regs` from the group's own layout, as each is held at the current
    /// instruction (one value, one per four threads for a varying 32-bit register, or one per
    /// thread for a varying 64-bit register).
    pub(super) fn load_group(&mut self, regs: &[u32]) -> Vec<(u32, Vec<Value>)> {
        let base = self.lane_regs(0);
        let size = 8 * i32::from(self.group_width());
        let mut out = Vec::new();
        for &r in regs {
            let at = size * r as i32;
            let values = match self.vars_of(r) {
                Vars::Vec32(_) => (0..i32::from(self.p))
                    .map(|j| self.b.ins().load(types::I32X4, mem(), base, at + 16 * j))
                    .collect(),
                Vars::Lanes64(_) => (0..i32::from(self.group_width()))
                    .map(|lane| self.b.ins().load(types::I64, mem(), base, at + 8 * lane))
                    .collect(),
                Vars::Scalar(_) => {
                    let ty = match self.t.plan.widths[r as usize] {
                        Width::W32 => types::I32,
                        Width::W64 => types::I64,
                    };
                    vec![self.b.ins().load(ty, mem(), base, at)]
                }
            };
            out.push((r, values));
        }
        out
    }

    /// Defines register `r`'s variables at the current instruction as `values`.
    pub(super) fn def_vars(&mut self, r: u32, values: &[Value]) {
        match self.vars_of(r) {
            Vars::Scalar(var) => self.b.def_var(var, values[0]),
            Vars::Vec32(vars) | Vars::Lanes64(vars) => {
                for (var, &v) in vars.iter().zip(values) {
                    self.b.def_var(*var, v);
                }
            }
        }
    }

    /// The registers a group need not store at wait point `wait`: those no entry that
    /// reaches it writes (the start keeps none).
    pub(super) fn kept_at(&self, wait: u32) -> BTreeSet<u32> {
        let mut entries = self.regions.reach.get(&wait).into_iter().flatten();
        let Some(first) = entries.next() else {
            return BTreeSet::new();
        };
        let mut kept = self.unwritten.get(first).cloned().unwrap_or_default();
        for e in entries {
            let theirs = self.unwritten.get(e).cloned().unwrap_or_default();
            kept.retain(|r| theirs.contains(r));
        }
        kept
    }

    /// At an exit at `pc`: the registers live there that the regions holding `pc` leave
    /// untouched are in the group's layout, not in variables: loaded from there, before
    /// anything is stored over that layout.
    pub(super) fn reload_untouched(&mut self, pc: usize) {
        let here = std::mem::replace(&mut self.pc, pc);
        let mut regs: Option<BTreeSet<u32>> = None;
        for (entry, region) in &self.regions.region {
            if !region.contains(&pc) {
                continue;
            }
            let theirs = self.untouched.get(entry).cloned().unwrap_or_default();
            regs = Some(match regs {
                Some(mut r) => {
                    r.retain(|x| theirs.contains(x));
                    r
                }
                None => theirs,
            });
        }
        let regs: Vec<u32> = (regs.unwrap_or_default().into_iter())
            .filter(|&r| self.t.plan.live.is_live(pc, r))
            .collect();
        for (r, values) in self.load_group(&regs) {
            self.def_vars(r, &values);
        }
        self.pc = here;
    }

    /// Loads the registers live at `pc`: those of a group this function saved at a barrier
    /// (`trusted`) from the group's layout; else from each thread's slots, handing the group
    /// to the scalar code when a uniform or affine register's four values are not of its
    /// shape (threads that ran one by one before the barrier may have parted).
    pub(super) fn restore(&mut self, pc: usize, trusted: Option<u32>) {
        if let Some(entry) = trusted {
            return self.restore_group(pc, entry);
        }
        // The scalar code never stores the registers it computes again at each read (a
        // parameter, a constant, a launch-shape register written once at the kernel's top):
        // their slots hold nothing of this block. Computed again here too.
        let remat = crate::codegen::rematerialized(&self.t.code.insts, self.t.code.num_regs);
        let live: Vec<u32> = (self.live_at(pc).into_iter())
            .filter(|r| !remat.contains_key(r))
            .collect();
        for (&r, &def) in &remat {
            if self.t.plan.live.is_live(pc, r) {
                self.pc = def;
                self.compute(def);
            }
        }
        self.pc = pc;
        let bases: Vec<Value> = (0..i64::from(self.group_width()))
            .map(|lane| self.lane_regs(lane))
            .collect();
        let mut ok: Option<Value> = None;
        for &r in &live {
            let loaded: Vec<Value> = bases
                .iter()
                .map(|&base| self.b.ins().load(types::I64, mem(), base, 8 * r as i32))
                .collect();
            let narrow = self.t.plan.widths[r as usize] == Width::W32;
            match self.vars_of(r) {
                Vars::Vec32(vars) => {
                    for (j, var) in vars.iter().enumerate() {
                        let lanes: Vec<Value> = loaded[4 * j..4 * j + 4]
                            .iter()
                            .map(|&x| self.b.ins().ireduce(types::I32, x))
                            .collect();
                        let v = self.gather(&lanes);
                        self.b.def_var(*var, v);
                    }
                }
                Vars::Lanes64(vars) => {
                    for (var, x) in vars.iter().zip(&loaded) {
                        self.b.def_var(*var, *x);
                    }
                }
                Vars::Scalar(var) => {
                    let v0 = if narrow {
                        self.b.ins().ireduce(types::I32, loaded[0])
                    } else {
                        loaded[0]
                    };
                    self.b.def_var(var, v0);
                    for (i, &x) in loaded.iter().enumerate().skip(1) {
                        let expected = self.lane64(Src::Reg(r), i as u8);
                        let same = self.b.ins().icmp(IntCC::Equal, x, expected);
                        ok = Some(match ok {
                            Some(o) => self.b.ins().band(o, same),
                            None => same,
                        });
                    }
                }
            }
        }
        if let Some(ok) = ok {
            let go = self.b.create_block();
            let parted = self.scalar_block();
            self.b.ins().brif(ok, go, &[], parted, &[]);
            self.b.switch_to_block(go);
        }
    }
}
