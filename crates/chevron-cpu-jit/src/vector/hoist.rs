//! Shared-memory checks taken out of loops that end by themselves. In a loop closed by a
//! counter below a constant bound (`codegen/counted.rs`) whose body is one straight run, a
//! shared access through a register the loop only raises by a constant (tiled matmul's
//! `As[ty][k]` and `Bs[k][tx]`) reaches a range of addresses known at the loop's entry: the
//! vector function checks that range once there and the accesses in the loop go unchecked.
//! Where the range check fails (or the counter starts at or past its bound) the group leaves
//! the vector code at the loop's head and the scalar code runs it, checking every access.

use std::mem::offset_of;

use chevron_ptx::lowered::{AddrBase, Inst, Op, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, Value};

use super::plan::Width;
use super::shapes::{Shape, Shapes};
use crate::context::BlockContext;

/// A loop whose shared accesses are checked at its entry.
pub struct HoistedLoop {
    /// The loop's first instruction (where its entry check stands, and the group leaves when
    /// the check fails).
    pub head: usize,
    /// The backward branch that closes it.
    pub end: usize,
    /// The counter: the loop makes at most `ceil(bound / step)` passes when it enters below
    /// `bound`.
    pub counter: u32,
    pub bound: u64,
    pub accesses: Vec<HoistedAccess>,
}

/// A shared access of a [`HoistedLoop`]: in every pass its address register holds its value at
/// the loop's entry plus `k * step` for some `k` in `min_k..=max_k`.
pub struct HoistedAccess {
    pub pc: usize,
    pub reg: u32,
    pub offset: i64,
    /// log2 of the bytes per thread.
    pub shift: u32,
    /// Bytes from one thread's element to the next: 0 (all the same one), the element's size
    /// (consecutive ones) or another multiple of it, negative too (strided).
    pub stride: i64,
    pub step: u64,
    pub min_k: u64,
    pub max_k: u64,
}

/// The loops of `insts` whose shared accesses can be checked at their entry.
pub fn hoisted_loops(insts: &[Inst], shapes: &Shapes, widths: &[Width]) -> Vec<HoistedLoop> {
    let mut loops = Vec::new();
    for (end, inst) in insts.iter().enumerate() {
        let Op::Bra { target } = inst.op else {
            continue;
        };
        let head = target as usize;
        if head > end {
            continue;
        }
        let Some(counter) = crate::codegen::counter(insts, end, head) else {
            continue;
        };
        if counter.bound == 0 {
            continue;
        }
        // One straight run: no other branch or barrier inside, nothing jumps in past the head
        // (`counter` saw to that), the counter the same in the four threads at the entry.
        let straight = insts[head..end]
            .iter()
            .all(|i| !matches!(i.op, Op::Bra { .. } | Op::Bar { .. } | Op::Warp { .. }));
        if !straight || shapes.of(head, &Src::Reg(counter.reg)) != Shape::Uniform {
            continue;
        }
        let passes = counter.bound.div_ceil(counter.step);
        let accesses: Vec<HoistedAccess> = (head..end)
            .filter_map(|pc| access(insts, shapes, widths, (head, end), pc, passes))
            .collect();
        if !accesses.is_empty() {
            loops.push(HoistedLoop {
                head,
                end,
                counter: counter.reg,
                bound: counter.bound,
                accesses,
            });
        }
    }
    loops
}

/// The shared access at `pc` of the loop `head..=end`, when its addresses over the loop's
/// passes are known at the entry.
fn access(
    insts: &[Inst],
    shapes: &Shapes,
    widths: &[Width],
    (head, end): (usize, usize),
    pc: usize,
    passes: u64,
) -> Option<HoistedAccess> {
    if !super::elements::plain(&insts[pc].op) {
        return None;
    }
    let (addr, bits) = match &insts[pc].op {
        Op::Ld {
            space: Space::Shared,
            addr,
            bits,
            ..
        }
        | Op::St {
            space: Space::Shared,
            addr,
            bits,
            ..
        } => (addr, *bits),
        _ => return None,
    };
    let AddrBase::Reg(reg) = addr.base else {
        return None;
    };
    let element = u64::from(bits / 8);
    let shape = shapes.of(pc, &Src::Reg(reg));
    if widths.get(reg as usize) != Some(&Width::W32)
        || !matches!(shape, Shape::Uniform | Shape::Affine(_))
        || shapes.of(head, &Src::Reg(reg)) == Shape::Varying
        || !matches!(element, 4 | 8)
    {
        return None;
    }
    let writes: Vec<usize> = (head..=end)
        .filter(|&i| insts[i].operands().writes.contains(&reg))
        .collect();
    let (step, min_k, max_k) = match writes[..] {
        [] => (0, 0, 0),
        [add] => {
            // `add.s32 r, r, STEP`: 32 bits, as the address wraps.
            let (step, 32) = crate::codegen::raise(&insts[add], reg)? else {
                return None;
            };
            if !step.is_multiple_of(element) {
                return None;
            }
            // Before the raise in the pass: raised once per earlier pass; after it, once more.
            if pc < add {
                (step, 0, passes - 1)
            } else {
                (step, 1, passes)
            }
        }
        _ => return None,
    };
    Some(HoistedAccess {
        pc,
        reg,
        offset: addr.offset,
        shift: element.trailing_zeros(),
        stride: match shape {
            Shape::Affine(k) => k,
            _ => 0,
        },
        step,
        min_k,
        max_k,
    })
}

impl super::VectorEmitter<'_, '_, '_> {
    /// At the head of loop `index` (entered from outside it): checks the range of each of its
    /// shared accesses over all its passes, then goes on in `body` (where the loop's own branch
    /// comes back), else leaves the vector code here.
    pub(super) fn loop_entry_check(&mut self, index: usize, body: Block) {
        let l = &self.t.plan.loops[index];
        let (head, counter, bound) = (l.head, l.counter, l.bound);
        let c0 = self.lane64(Src::Reg(counter), 0);
        let mut ok = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, c0, bound as i64);
        for a in 0..self.t.plan.loops[index].accesses.len() {
            let a = &self.t.plan.loops[index].accesses[a];
            let (reg, offset, shift, stride) = (a.reg, a.offset, a.shift, a.stride);
            let (low, high) = (a.min_k * a.step, a.max_k * a.step);
            let r0 = self.lane64(Src::Reg(reg), 0);
            // The lowest and the highest element over the passes and the group's threads (the
            // last thread's below the first's for a negative stride).
            let across = i64::from(self.group_width() - 1) * stride;
            let first = (self.b.ins()).iadd_imm_u(r0, offset + low as i64 + across.min(0));
            let span = (high - low) as i64 + across.abs();
            let last = self.b.ins().iadd_imm_u(first, span);
            let limits = offset_of!(BlockContext, shared_limits) + 8 * shift as usize;
            let limit = self.load_fixed(types::I64, limits);
            let within = self.within_both(first, last, limit, shift);
            ok = self.b.ins().band(ok, within);
        }
        let out = self.exit_block(head);
        self.b.ins().brif(ok, body, &[], out, &[]);
        self.b.switch_to_block(body);
    }

    /// The host address of hoisted access `pc` (checked at its loop's entry), and the bytes
    /// from one thread's element to the next; `None` for any other access.
    pub(super) fn hoisted_host(
        &mut self,
        pc: usize,
        addr: &chevron_ptx::lowered::Addr,
    ) -> Option<(Value, i64)> {
        let stride = self
            .t
            .plan
            .loops
            .iter()
            .flat_map(|l| &l.accesses)
            .find(|a| a.pc == pc)?
            .stride;
        let AddrBase::Reg(r) = addr.base else {
            return None;
        };
        let r0 = self.lane64(Src::Reg(r), 0);
        let first = self.b.ins().iadd_imm_u(r0, addr.offset);
        let shared = self.load_fixed(types::I64, offset_of!(BlockContext, shared));
        Some((self.b.ins().iadd(shared, first), stride))
    }
}
