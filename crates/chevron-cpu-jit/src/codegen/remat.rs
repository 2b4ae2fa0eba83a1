//! Registers computed again at each read instead of kept: those written once, at the top of
//! the kernel, with a kernel parameter, a constant or a launch-shape special register
//! (`%tid`, `%ctaid`, ...). Reading one costs a load from the block context or the parameter
//! buffer; keeping it would hold a machine register across every loop of the kernel (or a
//! stack slot, reloaded), and save and restore it at every barrier.

use std::collections::{BTreeMap, BTreeSet};

use std::mem::offset_of;

use chevron_ptx::lowered::{AddrBase, Flow, Inst, Op, Space, Special, Src};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};

use super::arith::mask_bits;
use super::{registers, Emitter};
use crate::context::BlockContext;

/// Register → the instruction that writes it, for every register that qualifies.
pub(super) fn rematerializable(insts: &[Inst], registers: u32) -> BTreeMap<u32, usize> {
    let targets: BTreeSet<usize> = insts
        .iter()
        .filter_map(|inst| match inst.op.flow() {
            Flow::Jump(targets) => Some(targets),
            _ => None,
        })
        .flatten()
        .map(|target| target as usize)
        .collect();
    // The straight-line start of the kernel: an instruction there runs before anything after
    // it, on every path (it goes on to the next one and waits for no other thread).
    let prefix = insts
        .iter()
        .enumerate()
        .position(|(pc, inst)| {
            let operands = inst.operands();
            targets.contains(&pc) || operands.flow != Flow::Next || operands.meets.is_some()
        })
        .unwrap_or(insts.len());
    let mut writes = vec![0u32; registers as usize];
    let mut first_read = vec![usize::MAX; registers as usize];
    for (pc, inst) in insts.iter().enumerate() {
        let operands = inst.operands();
        let (used, defined) = (
            operands.registers_read().collect::<Vec<_>>(),
            operands.writes,
        );
        for r in used.into_iter().filter(|&r| r < registers) {
            first_read[r as usize] = first_read[r as usize].min(pc);
        }
        // Guarded writes count too (they make the register's value depend on the guard).
        let guarded = if inst.guard.is_some() { 2 } else { 1 };
        for r in defined.into_iter().filter(|&r| r < registers) {
            writes[r as usize] += guarded;
        }
    }
    let mut found = BTreeMap::new();
    for (pc, inst) in insts.iter().enumerate().take(prefix) {
        let d = match &inst.op {
            Op::Ld {
                space: Space::Param,
                ds,
                addr,
                ..
            } if ds.len() == 1 && addr.base == AddrBase::KernelParam => ds[0],
            Op::Mov { d, a, .. } if cheap(a) => *d,
            _ => continue,
        };
        if d < registers
            && inst.guard.is_none()
            && writes[d as usize] == 1
            && first_read[d as usize] > pc
        {
            found.insert(d, pc);
        }
    }
    found
}

/// Whether reading `a` again is a constant or one load.
fn cheap(a: &Src) -> bool {
    match a {
        Src::Imm(_) => true,
        Src::Special(sp) => matches!(
            sp,
            Special::Tid(_)
                | Special::Ntid(_)
                | Special::Ctaid(_)
                | Special::Nctaid(_)
                | Special::Laneid
                | Special::Warpid
                | Special::DynamicSmem
                | Special::TotalSmem
        ),
        _ => false,
    }
}

/// Reading registers, rematerialized ones computed where they are read.
impl Emitter<'_, '_, '_> {
    /// Register `r` (64 bits, as the interpreter holds it).
    pub(super) fn reg(&mut self, r: u32) -> Value {
        match self.remat.get(&r) {
            Some(&pc) => self.remat_value(pc),
            None => self.regs.read(self.b, r),
        }
    }

    /// The low 32 bits of register `r` as an `f32`.
    pub(super) fn reg_f32(&mut self, r: u32) -> Value {
        match self
            .remat
            .get(&r)
            .map(|&pc| (pc, &self.t.code.insts[pc].op))
        {
            Some((_, Op::Ld { bits: 32, addr, .. })) => {
                // A 32-bit parameter read straight into a float register.
                let params = self.load_fixed(types::I64, offset_of!(BlockContext, params));
                let flags = MemFlagsData::trusted().with_readonly().with_can_move();
                self.b
                    .ins()
                    .load(types::F32, flags, params, addr.offset as i32)
            }
            Some((pc, _)) => {
                let v = self.remat_value(pc);
                registers::f32_of(self.b, v)
            }
            None => self.regs.read_f32(self.b, r),
        }
    }

    /// The value the instruction at `pc` writes to its rematerialized register.
    fn remat_value(&mut self, pc: usize) -> Value {
        match &self.t.code.insts[pc].op {
            Op::Ld {
                bits, signed, addr, ..
            } => {
                let params = self.load_fixed(types::I64, offset_of!(BlockContext, params));
                let ty = Type::int(u16::from(*bits)).unwrap_or(types::I64);
                let flags = MemFlagsData::trusted().with_readonly().with_can_move();
                let v = self.b.ins().load(ty, flags, params, addr.offset as i32);
                match (*bits, *signed) {
                    (64, _) => v,
                    (_, true) => self.b.ins().sextend(types::I64, v),
                    (_, false) => self.b.ins().uextend(types::I64, v),
                }
            }
            Op::Mov { a, bits, .. } => {
                let v = self.src(*a);
                mask_bits(self.b, v, u32::from(*bits))
            }
            // `remat.rs` picks only the two above.
            _ => self.b.ins().iconst(types::I64, 0),
        }
    }
}
