//! Barriers counted in the block's barrier table (`barrier_table.rs`): every barrier of a
//! kernel with a named barrier (an id other than 0, a thread count, `bar.arrive`) or with a
//! `bar.red` beside warp collectives, where the plain phase (every live thread at one barrier,
//! `block_red.rs`'s tallies) does not hold.
//!
//! A thread at `bar.sync`/`bar.red` saves its registers with its resume state marked
//! [`WAITING`], then arrives through the `barrier` callback, which may complete the barrier
//! (and clear the marks of the threads waiting there); it goes on with the next thread. At
//! `bar.arrive` it arrives and runs on. An exiting thread tells the table (`barrier_exit`):
//! barriers waiting for every live thread may complete then.

use chevron_ptx::interp::program::FunctionCode;
use chevron_ptx::lowered::{BarrierKind, Inst, Meeting, Op, Src};
use cranelift_codegen::ir::{types, InstBuilder};

use super::{block_red, Emitter};
use crate::barrier_table::ARRIVED;
use crate::context::WAITING;

/// Whether `bar` is a barrier the plain phase handles: `bar.sync 0` (or `bar.red` with id 0)
/// without a thread count.
fn plain(op: &Op) -> bool {
    matches!(
        op,
        Op::Bar {
            kind: BarrierKind::Sync | BarrierKind::Red(_),
            id: Src::Imm(0),
            count: None,
            ..
        }
    )
}

/// Whether the barriers of `insts` go through the block's barrier table: one of them is not
/// plain, or a `bar.red` shares the kernel with warp collectives.
pub(crate) fn counted(insts: &[Inst]) -> bool {
    let named = insts
        .iter()
        .any(|inst| matches!(inst.op, Op::Bar { .. }) && !plain(&inst.op));
    named
        || (block_red::any(insts)
            && insts
                .iter()
                .any(|inst| inst.operands().meets == Some(Meeting::Warp)))
}

/// [`counted`] for a kernel's code.
pub fn uses_table(code: &FunctionCode) -> bool {
    counted(&code.insts)
}

impl Emitter<'_, '_, '_> {
    /// The barrier at `pc`, counted in the block's table.
    pub(super) fn counted_barrier(&mut self, pc: usize) {
        let Op::Bar {
            kind,
            id,
            count,
            pred,
            ..
        } = self.t.code.insts[pc].op
        else {
            return;
        };
        let waits = kind != BarrierKind::Arrive;
        if waits {
            let resume = self.resume_ids[&(pc + 1)];
            self.save_state(resume | WAITING, pc + 1);
        }
        let op = self.op_address(pc);
        let thread = self.b.use_var(self.thread);
        let id = self.src(id);
        let id = self.b.ins().band_imm_u(id, 0xffff_ffff);
        let count = match count {
            Some(c) => {
                let c = self.src(c);
                self.b.ins().band_imm_u(c, 0xffff_ffff)
            }
            None => self.b.ins().iconst(types::I64, -1),
        };
        let pred = match kind {
            BarrierKind::Red(_) => self.src(pred),
            _ => self.b.ins().iconst(types::I64, 0),
        };
        let call = self
            .b
            .ins()
            .call(self.t.barrier, &[self.ctx, op, thread, id, count, pred]);
        let status = self.b.inst_results(call)[0];
        let bad = self.b.ins().icmp_imm_u(
            cranelift_codegen::ir::condcodes::IntCC::NotEqual,
            status,
            ARRIVED as i64,
        );
        let faulted = self.fault_block(pc);
        let on = self.b.create_block();
        self.b.ins().brif(bad, faulted, &[], on, &[]);
        self.b.switch_to_block(on);
        if waits {
            self.b.ins().jump(self.next_thread, &[]);
        } else {
            self.jump_to_pc(pc + 1);
        }
    }

    /// An exiting thread's note to the table.
    pub(super) fn counted_exit(&mut self) {
        self.b.ins().call(self.t.barrier_exit, &[self.ctx]);
    }
}
