//! `shfl` four threads at a time: a group offers its four values (into the block's exchange,
//! where the scalar code's threads offer theirs: one 64-bit slot per thread, in the row of the
//! thread's offer count's parity) and waits as a barrier waits, saved in its own layout; once
//! its warp is released (by the vector function itself after the warp's last group, when all
//! 32 threads wait there, else by the host after the phase), the group reads each thread's
//! source lane's value. The
//! lane and clamp operands are the same in the four threads (the plan's rule), so the source
//! lanes follow from the thread's lane alone.

use std::mem::offset_of;

use chevron_ptx::ir::ShuffleMode;
use chevron_ptx::lowered::{Collective, Op};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, ConstantData, InstBuilder, MemFlagsData, Value};

use super::{Lane, VectorEmitter};
use crate::codegen::mem;
use crate::context::{BlockContext, EXITED, VECTOR_SAVED, WARP_WAITING};

impl VectorEmitter<'_, '_, '_> {
    /// The address of thread `lane` of the group's offer count, and that count.
    fn offer_count(&mut self, lane: u8) -> (Value, Value) {
        let offered = self.load_fixed(types::I64, offset_of!(BlockContext, offered));
        let g = self.b.use_var(self.group);
        let t = self.b.ins().ishl_imm_u(g, 2);
        let at = self.b.ins().ishl_imm_u(t, 2);
        let slot = self.b.ins().iadd(offered, at);
        let slot = self.b.ins().iadd_imm_u(slot, 4 * i64::from(lane));
        let count = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::trusted(), slot, 0);
        (slot, count)
    }

    /// The address of thread `index`'s slot in the exchange row of offer count `count`'s
    /// parity.
    fn exchange_slot(&mut self, count: Value, index: Value) -> Value {
        let parity = self.b.ins().band_imm_u(count, 1);
        let parity = self.b.ins().uextend(types::I64, parity);
        let threads = self.load_fixed(types::I64, offset_of!(BlockContext, threads));
        let row = self.b.ins().imul(parity, threads);
        let at = self.b.ins().iadd(row, index);
        let at = self.b.ins().ishl_imm_u(at, 3);
        let exchange = self.load_fixed(types::I64, offset_of!(BlockContext, exchange));
        self.b.ins().iadd(exchange, at)
    }

    /// The `shfl` at `pc`: each thread offers its value, the group waits for its warp. A
    /// warp's lanes have offered equally often (a warp is released only when all its lanes
    /// wait at one shuffle, else the block goes to the interpreter), so thread 0's count is
    /// the group's.
    pub(super) fn offer_shuffle(&mut self, pc: usize) {
        let Op::Warp {
            c: Collective::Shfl { a, .. },
            ..
        } = &self.t.code.insts[pc].op
        else {
            unreachable!("the plan admits shuffles only");
        };
        let a = *a;
        let g = self.b.use_var(self.group);
        let first = self.b.ins().ishl_imm_u(g, 2);
        let (slot, count) = self.offer_count(0);
        let at = self.exchange_slot(count, first);
        let v = self.vec32(a, 0);
        let low = self.b.ins().uwiden_low(v);
        let high = self.b.ins().uwiden_high(v);
        self.b.ins().store(MemFlagsData::trusted(), low, at, 0);
        self.b.ins().store(MemFlagsData::trusted(), high, at, 16);
        let next = self.b.ins().iadd_imm_u(count, 1);
        let next = self.b.ins().splat(types::I32X4, next);
        self.b.ins().store(MemFlagsData::trusted(), next, slot, 0);
        let id = self.shuffle_ids[&pc];
        self.save_group(pc, id);
        self.set_states(id | WARP_WAITING | VECTOR_SAVED);
        self.chain(id);
    }

    /// The step past group `next - 1` of a kernel with shuffles (`next` is in the group
    /// variable): after a warp's last group, when the warp's 32 threads all wait at one
    /// shuffle (their states the same but for [`VECTOR_SAVED`], with [`WARP_WAITING`], not
    /// exited), the warp is released here, as the host's `release_warps` would release it
    /// after the phase, and its first group runs again: a warp goes from shuffle to shuffle
    /// within one call, its saved registers still in cache, and the host makes no pass over
    /// the block's states per shuffle. Otherwise, the next group. Warps run one after another
    /// between block barriers, an order the interpreter's warp scheduling may also take.
    pub(super) fn release_warp(&mut self, next: Value, head: Block) {
        let lane = self.b.ins().band_imm_u(next, 7);
        let check = self.b.create_block();
        self.b.ins().brif(lane, head, &[], check, &[]);
        self.b.switch_to_block(check);
        let base = self.load_fixed(types::I64, offset_of!(BlockContext, resume));
        let at = self.b.ins().ishl_imm_u(next, 4);
        let end = self.b.ins().iadd(base, at);
        let keep = self
            .b
            .ins()
            .iconst(types::I32, i64::from(!VECTOR_SAVED as i32));
        let keep = self.b.ins().splat(types::I32X4, keep);
        let states: Vec<Value> = (0..8)
            .map(|k| {
                let v = self.b.ins().load(types::I32X4, mem(), end, 16 * k - 128);
                self.b.ins().band(v, keep)
            })
            .collect();
        let first = self.b.ins().extractlane(states[0], 0);
        let firsts = self.b.ins().splat(types::I32X4, first);
        let mut diff = self.b.ins().bxor(states[0], firsts);
        for &v in &states[1..] {
            let d = self.b.ins().bxor(v, firsts);
            diff = self.b.ins().bor(diff, d);
        }
        let parted = self.b.ins().vany_true(diff);
        let waiting = self.b.ins().band_imm_u(first, i64::from(WARP_WAITING));
        let exited = EXITED & !VECTOR_SAVED;
        let live = self
            .b
            .ins()
            .icmp_imm_u(IntCC::NotEqual, first, i64::from(exited as i32));
        let at_one = self.b.create_block();
        let release = self.b.create_block();
        self.b.ins().brif(parted, head, &[], at_one, &[]);
        self.b.switch_to_block(at_one);
        let go = self.b.ins().icmp_imm_u(IntCC::NotEqual, waiting, 0);
        let go = self.b.ins().band(go, live);
        self.b.ins().brif(go, release, &[], head, &[]);
        self.b.switch_to_block(release);
        let clear = self
            .b
            .ins()
            .iconst(types::I32, i64::from(!WARP_WAITING as i32));
        let clear = self.b.ins().splat(types::I32X4, clear);
        for k in 0..8 {
            let v = self.b.ins().load(types::I32X4, mem(), end, 16 * k - 128);
            let v = self.b.ins().band(v, clear);
            self.b.ins().store(mem(), v, end, 16 * k - 128);
        }
        let at = offset_of!(BlockContext, warp_reruns) as i32;
        let reruns = self
            .b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), self.ctx, at);
        let reruns = self.b.ins().iadd_imm_u(reruns, 8);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), reruns, self.ctx, at);
        let first_group = self.b.ins().iadd_imm_u(next, -8);
        self.b.def_var(self.group, first_group);
        self.b.ins().jump(head, &[]);
    }

    /// The result of the `shfl` at `pc` for the group, its warp having offered (its registers
    /// restored): each thread's source lane's value and whether that lane is in range; then
    /// the instruction after it.
    pub(super) fn finish_shuffle(&mut self, pc: usize) {
        let Op::Warp {
            c: Collective::Shfl {
                mode, d, p, b, c, ..
            },
            ..
        } = &self.t.code.insts[pc].op
        else {
            unreachable!("the plan admits shuffles only");
        };
        let (mode, d, p, b, c) = (*mode, *d, *p, *b, *c);
        self.pc = pc;
        let bv = self.lane0_32(b);
        let cv = self.lane0_32(c);
        let g = self.b.use_var(self.group);
        let first = self.b.ins().ishl_imm_u(g, 2);
        let lane0 = self.b.ins().band_imm_u(first, 31);
        let warp = self.b.ins().isub(first, lane0);
        let lane0 = self.b.ins().ireduce(types::I32, lane0);
        let lane0 = self.b.ins().splat(types::I32X4, lane0);
        let steps = self.vconst([0, 1, 2, 3]);
        let own = self.b.ins().iadd(lane0, steps);
        let (source, in_range) = self.shuffle_source_x4(mode, own, bv, cv);
        let (_, count) = self.offer_count(0);
        let last = self.b.ins().iadd_imm_u(count, -1);
        let row = self.exchange_slot(last, warp);
        // Four consecutive source lanes (a `down` or `up` in range, a `bfly` or `idx` moving
        // the group whole): their slots are 32 consecutive bytes, two loads and a shuffle of
        // their low words. Else one load per lane.
        let s0 = self.b.ins().extractlane(source, 0);
        let first = self.b.ins().splat(types::I32X4, s0);
        let steps = self.vconst([0, 1, 2, 3]);
        let expected = self.b.ins().iadd(first, steps);
        let same = self.b.ins().icmp(IntCC::Equal, source, expected);
        let consecutive = self.b.ins().vall_true(same);
        let whole = self.b.create_block();
        let lanes = self.b.create_block();
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, types::I32X4);
        self.b.ins().brif(consecutive, whole, &[], lanes, &[]);
        self.b.switch_to_block(whole);
        let s = self.b.ins().uextend(types::I64, s0);
        let at = self.b.ins().ishl_imm_u(s, 3);
        let at = self.b.ins().iadd(row, at);
        let low = self
            .b
            .ins()
            .load(types::I8X16, MemFlagsData::trusted(), at, 0);
        let high = self
            .b
            .ins()
            .load(types::I8X16, MemFlagsData::trusted(), at, 16);
        let mask: Vec<u8> = [0u8, 8, 16, 24]
            .iter()
            .flat_map(|&b| [b, b + 1, b + 2, b + 3])
            .collect();
        let mask = self.b.func.dfg.immediates.push(ConstantData::from(mask));
        let picked = self.b.ins().shuffle(low, high, mask);
        let v = self
            .b
            .ins()
            .bitcast(types::I32X4, super::ops::lanes(), picked);
        self.b.ins().jump(join, &[v.into()]);
        self.b.switch_to_block(lanes);
        let values: Vec<Value> = (0..4u8)
            .map(|i| {
                let s = self.b.ins().extractlane(source, i);
                let s = self.b.ins().uextend(types::I64, s);
                let at = self.b.ins().ishl_imm_u(s, 3);
                let at = self.b.ins().iadd(row, at);
                self.b
                    .ins()
                    .load(types::I32, MemFlagsData::trusted(), at, 0)
            })
            .collect();
        let v = self.gather(&values);
        self.b.ins().jump(join, &[v.into()]);
        self.b.switch_to_block(join);
        self.set(d, Lane::Vector(0), result);
        // (No predicate: `p` is the sink, which `set` ignores.)
        let one = self.vconst([1; 4]);
        let r = self.b.ins().band(in_range, one);
        self.set(p, Lane::Vector(0), r);
        self.jump_to_pc(pc + 1);
    }

    /// The source lanes of a `shfl` of `mode` for the four lanes `own` (an `i32x4`) and
    /// operands `b` and `c` the same in all four (`i32`), as the scalar code's
    /// `shuffle_source` computes them for one, and a mask of those in range (out of range, a
    /// lane reads its own value).
    pub(super) fn shuffle_source_x4(
        &mut self,
        mode: ShuffleMode,
        own: Value,
        b: Value,
        c: Value,
    ) -> (Value, Value) {
        let bval = self.b.ins().band_imm_u(b, 0x1f);
        let clamp = self.b.ins().band_imm_u(c, 0x1f);
        let seg = self.b.ins().ushr_imm_u(c, 8);
        let seg = self.b.ins().band_imm_u(seg, 0x1f);
        let outside = self.b.ins().band_not(clamp, seg);
        let splat = |e: &mut Self, v: Value| e.b.ins().splat(types::I32X4, v);
        let seg_v = splat(self, seg);
        let min_lane = self.b.ins().band(own, seg_v);
        let outside = splat(self, outside);
        let max_lane = self.b.ins().bor(min_lane, outside);
        let (j, ok) = match mode {
            ShuffleMode::Up => {
                let bv = splat(self, bval);
                (self.b.ins().isub(own, bv), IntCC::SignedGreaterThanOrEqual)
            }
            ShuffleMode::Down => {
                let bv = splat(self, bval);
                (self.b.ins().iadd(own, bv), IntCC::SignedLessThanOrEqual)
            }
            ShuffleMode::Bfly => {
                let bv = splat(self, bval);
                (self.b.ins().bxor(own, bv), IntCC::SignedLessThanOrEqual)
            }
            ShuffleMode::Idx => {
                let idx = self.b.ins().band_not(bval, seg);
                let idx = splat(self, idx);
                (
                    self.b.ins().bor(min_lane, idx),
                    IntCC::SignedLessThanOrEqual,
                )
            }
        };
        let in_range = self.b.ins().icmp(ok, j, max_lane);
        let source = self.b.ins().bitselect(in_range, j, own);
        (source, in_range)
    }
}
