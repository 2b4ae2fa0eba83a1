//! `bar.red.popc` / `.and` / `.or` (`__syncthreads_count`, `__syncthreads_and`,
//! `__syncthreads_or`) in the scalar function of a kernel without warp collectives: a barrier
//! whose arriving threads also tally their predicates in the block's context.
//!
//! A phase runs each thread once, from where it stands to its next barrier or its end, so the
//! threads that arrive at one barrier all do so in one phase and read its result in the next,
//! where threads that already read it may arrive at the next barrier. Two tallies keep the two
//! apart ([`BlockContext::red_current`], [`BlockContext::red_previous`]): the first thread of a
//! phase to arrive at any barrier ([`BlockContext::barrier_waits`] still 0; the host clears it
//! after every phase) moves the current tally to the previous one and starts the current one
//! at zero, and a thread resuming after a `bar.red` reads the current tally when no thread of
//! its phase has arrived at a barrier yet, else the previous one. A tally counts true
//! predicates in its low 32 bits and arriving threads in its high 32: `popc` is the first,
//! `and` whether they are equal, `or` whether the first is not zero, as the interpreter
//! combines the warps arriving at a barrier (threads at a plain `bar.sync` of the same
//! barrier add nothing, exited threads are not waited for).

use std::mem::offset_of;

use chevron_ptx::ir::Op as IrOp;
use chevron_ptx::lowered::{BarrierKind, Inst, Op, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::Emitter;
use crate::context::BlockContext;

/// The reduction of the `bar.red` at instruction `pc` of `insts`, if it is one.
pub(super) fn reduction(insts: &[Inst], pc: usize) -> Option<IrOp> {
    match insts.get(pc)?.op {
        Op::Bar {
            kind: BarrierKind::Red(op),
            ..
        } => Some(op),
        _ => None,
    }
}

/// Whether any instruction of `insts` is a `bar.red`: then every barrier keeps the tallies.
pub(super) fn any(insts: &[Inst]) -> bool {
    (0..insts.len()).any(|pc| reduction(insts, pc).is_some())
}

impl Emitter<'_, '_, '_> {
    /// A thread's arrival at a barrier of a kernel with `bar.red`, before the phase is marked
    /// as one that waits: the first arrival of the phase starts a new tally; a `bar.red`'s
    /// arrival (`pred` its predicate) adds to it.
    pub(super) fn tally_arrival(&mut self, pred: Option<Src>) {
        let waits = self.load_ctx(types::I64, offset_of!(BlockContext, barrier_waits));
        let current = self.load_ctx(types::I64, offset_of!(BlockContext, red_current));
        let previous = self.load_ctx(types::I64, offset_of!(BlockContext, red_previous));
        let first = self.b.ins().icmp_imm_u(IntCC::Equal, waits, 0);
        let previous = self.b.ins().select(first, current, previous);
        let zero = self.b.ins().iconst(types::I64, 0);
        let mut current = self.b.ins().select(first, zero, current);
        if let Some(pred) = pred {
            let p = self.src(pred);
            let p = self.b.ins().icmp_imm_u(IntCC::NotEqual, p, 0);
            let p = self.b.ins().uextend(types::I64, p);
            let arrival = self.b.ins().iadd_imm_u(p, 1 << 32);
            current = self.b.ins().iadd(current, arrival);
        }
        self.store_ctx(current, offset_of!(BlockContext, red_current));
        self.store_ctx(previous, offset_of!(BlockContext, red_previous));
    }

    /// Where a thread resumes after the `bar.red` at `pc` (its registers loaded): its result
    /// into the destination, and on to the next instruction.
    pub(super) fn finish_block_red(&mut self, pc: usize) {
        let Op::Bar {
            kind: BarrierKind::Red(op),
            d,
            ..
        } = self.t.code.insts[pc].op
        else {
            return;
        };
        let waits = self.load_ctx(types::I64, offset_of!(BlockContext, barrier_waits));
        let current = self.load_ctx(types::I64, offset_of!(BlockContext, red_current));
        let previous = self.load_ctx(types::I64, offset_of!(BlockContext, red_previous));
        let none_yet = self.b.ins().icmp_imm_u(IntCC::Equal, waits, 0);
        let tally = self.b.ins().select(none_yet, current, previous);
        let trues = self.b.ins().band_imm_u(tally, 0xffff_ffff);
        let value = match op {
            IrOp::And => {
                let arrivals = self.b.ins().ushr_imm_u(tally, 32);
                self.flag(IntCC::Equal, trues, arrivals)
            }
            IrOp::Or => {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.flag(IntCC::NotEqual, trues, zero)
            }
            _ => trues,
        };
        self.set(d, value);
        self.jump_to_pc(pc + 1);
    }

    /// 1 if `a cc b`, else 0, as an `i64`.
    fn flag(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        let c = self.b.ins().icmp(cc, a, b);
        self.b.ins().uextend(types::I64, c)
    }
}
