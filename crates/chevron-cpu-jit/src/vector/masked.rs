//! A group that parts at a forward branch over a short straight region whose only effect is
//! its last instruction, a store (a reduction's `if (tid < s) cache[tid] += cache[tid + s]`,
//! a warp reduction's lane-0 store), stays in the vector code: the region's arithmetic runs
//! for all the group's threads, its loads and its store for the threads that do not branch,
//! each at its own address, checked first (a thread that branches reads the block context
//! instead and stores to a slot of its own). Nothing is stored before every check passed and
//! the registers the region writes are dead at the branch and at its target, so a check that
//! fails hands the group over at the branch itself, where the scalar code takes it thread by
//! thread.

use chevron_ptx::lowered::{Addr, AddrBase, Flow, Op, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, VectorEmitter};

/// The most instructions a masked region holds.
const REGION: usize = 8;

impl VectorEmitter<'_, '_, '_> {
    /// Whether the branch at `pc` to `target` skips a region [`masked_region`] can run: at
    /// most [`REGION`] unguarded instructions that nothing else jumps into, arithmetic and
    /// loads into varying registers, then one store; the registers it writes dead at `pc`
    /// and at `target`.
    ///
    /// [`masked_region`]: Self::masked_region
    pub(super) fn skips_a_store(&self, pc: usize, target: usize) -> bool {
        let insts = &self.t.code.insts;
        if target <= pc + 1 || target - pc - 1 > REGION || target > insts.len() {
            return false;
        }
        let live = &self.t.plan.live;
        for i in pc + 1..target {
            let inst = &insts[i];
            let operands = inst.operands();
            if inst.guard.is_some()
                || self.targets.contains(&i)
                || operands.flow != Flow::Next
                || operands.meets.is_some()
                || (operands.writes.iter()).any(|&r| {
                    live.is_live(pc, r) || (target < insts.len() && live.is_live(target, r))
                })
            {
                return false;
            }
            let last = i + 1 == target;
            let fits = match &inst.op {
                Op::St { space, addr, .. } => last && memory(*space, addr),
                Op::Ld {
                    space, addr, ds, ..
                } => {
                    !last
                        && memory(*space, addr)
                        && ds.len() == 1
                        && (self.t.plan.shapes.defs[i] == Shape::Varying
                            || self.uniform_address(i, addr))
                }
                Op::Atom { .. } | Op::Warp { .. } | Op::Bar { .. } => false,
                Op::Bra { .. } | Op::Ret | Op::Exit => false,
                _ => !last,
            };
            if !fits {
                return false;
            }
        }
        true
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
        let active: Vec<Value> = (0..self.group_width())
            .map(|lane| {
                let p = self
                    .b
                    .ins()
                    .extractlane(preds[usize::from(lane / 4)], lane % 4);
                let bit = self.b.ins().band_imm_u(p, 1);
                let cc = if run_when {
                    IntCC::NotEqual
                } else {
                    IntCC::Equal
                };
                self.b.ins().icmp_imm_u(cc, bit, 0)
            })
            .collect();
        let here = self.pc;
        self.exit_at = Some(pc);
        self.checked.clear();
        for i in pc + 1..target {
            self.pc = i;
            let next = self.b.create_block();
            self.b.set_cold_block(next);
            match self.t.code.insts[i].op.clone() {
                // One element for all: read as usual (a thread that runs the region reads it).
                Op::Ld { addr, .. } if self.uniform_address(i, &addr) => self.operation(i, next),
                Op::Ld {
                    space,
                    bits,
                    ds,
                    addr,
                    ..
                } => {
                    let ty = if bits == 64 { types::I64 } else { types::I32 };
                    let hosts = self.active_hosts(i, space, &addr, bits, &active);
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
                    let hosts = self.active_hosts(i, space, &addr, bits, &active);
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
