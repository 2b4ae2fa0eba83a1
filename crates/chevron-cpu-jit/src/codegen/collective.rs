//! Warp collectives inline: a lane's offer (its value into the block's exchange, by the parity
//! of its offers so far) and, once the warp has offered, a `shfl`'s source lane and result,
//! the interpreter's `shuffle_source` in a few integer operations ([`shuffle_source`]; the
//! vector function's `shuffle.rs` has its four-lane form). Other collectives call
//! [`collective`](crate::context::collective), which combines the 32 values. A collective
//! whose member mask is known only at run time offers the mask with its value, and its
//! `shfl` keeps only a partner lane's value (`context::collective` finds the partners).

use std::mem::offset_of;

use chevron_ptx::ir::ShuffleMode;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

use super::Emitter;
use crate::context::BlockContext;

impl Emitter<'_, '_, '_> {
    /// The row of `exchange` that offer number `count` of a thread goes to (one value per
    /// thread, in two rows by parity: a lane that has read its result may offer its next
    /// value before the rest of its warp has read the last one).
    fn exchange_row(&mut self, count: Value) -> Value {
        let parity = self.b.ins().band_imm_u(count, 1);
        let parity = self.b.ins().uextend(types::I64, parity);
        let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
        let row = self.b.ins().imul(parity, threads);
        let exchange = self.load_fixed(types::I64, offset_of!(BlockContext, exchange));
        let row = self.b.ins().ishl_imm_u(row, 3);
        self.b.ins().iadd(exchange, row)
    }

    /// The address of thread `t`'s offer count.
    fn offered_slot(&mut self, t: Value) -> Value {
        let offered = self.load_fixed(types::I64, offset_of!(BlockContext, offered));
        let at = self.b.ins().ishl_imm_u(t, 2);
        self.b.ins().iadd(offered, at)
    }

    /// Records `value` as what the current thread offers at its next collective.
    pub(super) fn offer(&mut self, value: Value) {
        let t = self.b.use_var(self.thread);
        let slot = self.offered_slot(t);
        let flags = MemFlagsData::trusted();
        let count = self.b.ins().load(types::I32, flags, slot, 0);
        let row = self.exchange_row(count);
        let at = self.b.ins().ishl_imm_u(t, 3);
        let at = self.b.ins().iadd(row, at);
        self.b.ins().store(flags, value, at, 0);
        let next = self.b.ins().iadd_imm_u(count, 1);
        self.b.ins().store(flags, next, slot, 0);
    }

    /// The current thread's `shfl` result once its warp has offered: (the source lane's value,
    /// low 32 bits; 1 if the source lane is in range; the source lane), for lane operand `b`
    /// and clamp and segment operand `c`.
    pub(super) fn shuffle_inline(
        &mut self,
        mode: ShuffleMode,
        b: Value,
        c: Value,
    ) -> (Value, Value, Value) {
        let t = self.b.use_var(self.thread);
        let lane = self.b.ins().band_imm_u(t, 31);
        let (source, in_range) = shuffle_source(self.b, mode, lane, b, c);
        let slot = self.offered_slot(t);
        let count = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::trusted(), slot, 0);
        let last = self.b.ins().iadd_imm_u(count, -1);
        let row = self.exchange_row(last);
        let first = self.b.ins().isub(t, lane);
        let index = self.b.ins().iadd(first, source);
        let at = self.b.ins().ishl_imm_u(index, 3);
        let at = self.b.ins().iadd(row, at);
        let value = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), at, 0);
        let value = self.b.ins().band_imm_u(value, 0xffff_ffff);
        (value, self.b.ins().uextend(types::I64, in_range), source)
    }

    /// What the current thread offers at a collective whose member mask is known only at run
    /// time (`subset::runtime_members`): its value's low 32 bits (every such collective's
    /// values fit) and its member mask `mask` above them, which
    /// [`collective`](crate::context::collective) reads to find the lanes each lane meets.
    pub(super) fn with_members(&mut self, value: Value, mask: Value) -> Value {
        let value = self.b.ins().band_imm_u(value, 0xffff_ffff);
        let mask = self.b.ins().ishl_imm_u(mask, 32);
        self.b.ins().bor(value, mask)
    }

    /// `1 << (t % 32)`: thread `t`'s bit in its warp's masks.
    pub(super) fn lane_bit(b: &mut FunctionBuilder<'_>, t: Value) -> Value {
        let lane = b.ins().band_imm_u(t, 31);
        let one = b.ins().iconst(types::I64, 1);
        b.ins().ishl(one, lane)
    }

    /// A run-time-mask `shfl`'s result `value` from lane `source`: kept when that lane is one
    /// of the current lane's partners (the mask `partners`), else 0, as the interpreter's
    /// `shfl` reads a lane outside its member mask.
    pub(super) fn partner_value(&mut self, value: Value, source: Value, partners: Value) -> Value {
        let bit = self.b.ins().ushr(partners, source);
        let bit = self.b.ins().band_imm_u(bit, 1);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().select(bit, value, zero)
    }
}

/// The source lane of `lane` (an `i64`) in a `shfl` of `mode` with lane operand `b` and clamp
/// and segment operand `c` (`i64`s), and whether it is in range (an `i8`; out of range, the
/// lane reads its own value, which the source is then).
fn shuffle_source(
    b: &mut FunctionBuilder<'_>,
    mode: ShuffleMode,
    lane: Value,
    bv: Value,
    c: Value,
) -> (Value, Value) {
    let bval = b.ins().band_imm_u(bv, 0x1f);
    let clamp = b.ins().band_imm_u(c, 0x1f);
    let seg = b.ins().ushr_imm_u(c, 8);
    let seg = b.ins().band_imm_u(seg, 0x1f);
    let min_lane = b.ins().band(lane, seg);
    let outside = b.ins().band_not(clamp, seg);
    let max_lane = b.ins().bor(min_lane, outside);
    // Every value below is a lane number or a difference of two: signed compares.
    let (j, ok) = match mode {
        ShuffleMode::Up => {
            let j = b.ins().isub(lane, bval);
            (j, IntCC::SignedGreaterThanOrEqual)
        }
        ShuffleMode::Down => (b.ins().iadd(lane, bval), IntCC::SignedLessThanOrEqual),
        ShuffleMode::Bfly => (b.ins().bxor(lane, bval), IntCC::SignedLessThanOrEqual),
        ShuffleMode::Idx => {
            let own = b.ins().band_not(bval, seg);
            (b.ins().bor(min_lane, own), IntCC::SignedLessThanOrEqual)
        }
    };
    // In range implies 0 <= j < 32 in every mode; out of range, a lane reads its own value.
    let in_range = b.ins().icmp(ok, j, max_lane);
    let source = b.ins().select(in_range, j, lane);
    (source, in_range)
}
