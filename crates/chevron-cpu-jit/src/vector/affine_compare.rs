//! A guard set by an ordered compare of an affine value with a uniform one just before it
//! (`setp.lt.u64 %p, %rd, %n; @%p bra` closing nvcc's grid-stride loops, whose 64-bit index is
//! affine in the thread; a shared tree's `setp.ge.u32 %p, %tid, %s; @%p bra`): the group's
//! threads hold `v + k·i`, so when the first and the last thread's values lie on the same
//! side of the other operand without wrapping between them (in the compare's own order), every
//! thread does, and the branch goes where thread 0's compare says: two scalar compares and a
//! branch, where the group's predicate took a vector compare per four threads (a 64-bit one a
//! compare per thread: 32 per pass in groups of 32) and a test of all of them. Otherwise (the
//! loop's last pass, the tree's level that parts the group, values that wrap) the guard is
//! decided from the predicate's lanes as before. The compare itself still sets its predicate
//! for every thread (for later readers), in code the whole-group path does not need.

use chevron_ptx::lowered::{Op, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value};

use super::shapes::Shape;
use super::VectorEmitter;

impl VectorEmitter<'_, '_, '_> {
    /// For instruction `pc`'s guard, register `reg`: when the instruction before it is such a
    /// compare writing `reg` and is `pc`'s only way in, branches to `on` (the guard holds) or
    /// `off` where the group's two ends decide, and continues in a new block where they do
    /// not.
    pub(super) fn decide_guard(&mut self, pc: usize, reg: u32, on: Block, off: Block) {
        let Some(before) = pc.checked_sub(1) else {
            return;
        };
        if self.targets.contains(&pc) || self.t.plan.handed.contains(&before) {
            return;
        }
        let inst = &self.t.code.insts[before];
        let Op::Setp {
            cmp,
            ty,
            a,
            b,
            p,
            q,
            combine: None,
            ..
        } = inst.op
        else {
            return;
        };
        if inst.guard.is_some() || (reg != p && reg != q) {
            return;
        }
        let Some(cc) = crate::codegen::int_cc(cmp, ty) else {
            return;
        };
        // The order the compare's values move in, when the affine one rises.
        let rising = match cc {
            IntCC::UnsignedLessThan
            | IntCC::UnsignedLessThanOrEqual
            | IntCC::UnsignedGreaterThan
            | IntCC::UnsignedGreaterThanOrEqual => IntCC::UnsignedLessThan,
            IntCC::SignedLessThan
            | IntCC::SignedLessThanOrEqual
            | IntCC::SignedGreaterThan
            | IntCC::SignedGreaterThanOrEqual => IntCC::SignedLessThan,
            // Equal and not equal are not decided by the two ends.
            _ => return,
        };
        // The operands as the compare read them (it writes neither).
        let here = std::mem::replace(&mut self.pc, before);
        let decided = self.ends_agree((ty.size(), cc, rising), a, b);
        self.pc = here;
        let Some((agree, first)) = decided else {
            return;
        };
        let (whole, each) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(agree, whole, &[], each, &[]);
        self.b.switch_to_block(whole);
        // `q` is `p`'s negation.
        let (holds, fails) = if reg == p { (on, off) } else { (off, on) };
        self.b.ins().brif(first, holds, &[], fails, &[]);
        self.b.switch_to_block(each);
    }

    /// Whether the compare `cc` of operands `a` and `b` (`bytes` wide, one affine and one
    /// uniform) gives every thread of the group thread 0's result, and that result; `None`
    /// for other shapes and widths.
    fn ends_agree(
        &mut self,
        (bytes, cc, rising): (u32, IntCC, IntCC),
        a: Src,
        b: Src,
    ) -> Option<(Value, Value)> {
        let k = match (self.shape(a), self.shape(b)) {
            (Shape::Affine(k), Shape::Uniform) | (Shape::Uniform, Shape::Affine(k)) => k,
            _ => return None,
        };
        // A 32-bit predicate is one vector compare per four threads: two scalar compares
        // pay from groups of eight.
        let wide = match bytes {
            8 => true,
            4 if self.group_width() >= 8 => false,
            _ => return None,
        };
        let last = self.group_width() - 1;
        let mut lane = |s, i| {
            if wide {
                self.lane64(s, i)
            } else {
                self.lane32(s, i)
            }
        };
        let (a0, al) = (lane(a, 0), lane(a, last));
        let (b0, bl) = (lane(b, 0), lane(b, last));
        let first = self.b.ins().icmp(cc, a0, b0);
        let end = self.b.ins().icmp(cc, al, bl);
        // No wrap between the ends: the affine operand's last value lies past its first in
        // the compare's order (before it when it falls), so the values in between do too.
        let (x0, xl) = if self.shape(a) == Shape::Uniform {
            (b0, bl)
        } else {
            (a0, al)
        };
        let in_order = if k > 0 {
            self.b.ins().icmp(rising, x0, xl)
        } else {
            self.b.ins().icmp(rising, xl, x0)
        };
        let same = self.b.ins().icmp(IntCC::Equal, first, end);
        Some((self.b.ins().band(same, in_order), first))
    }
}
