//! An ordered compare of a 64-bit affine value with a uniform one (`setp.lt.u64 %p, %rd, %n`
//! closing nvcc's grid-stride loops, whose 64-bit index is affine in the thread): the group's
//! threads hold `v + k·i`, so when the first and the last thread's values lie on the same
//! side of the other operand without wrapping between them (in the compare's own order), every
//! thread does: one scalar compare at each end decides the whole group, and its predicate is
//! one splat. Otherwise (the loop's last pass, where the group parts, or values that wrap) it
//! is compared thread by thread as before. Groups of 32 compared 32 times per pass before.

use chevron_ptx::lowered::{Op, SINK};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder};

use super::plan::Width;
use super::shapes::Shape;
use super::VectorEmitter;

impl VectorEmitter<'_, '_, '_> {
    /// When instruction `pc` is such a compare: decides it for the whole group where the ends
    /// do (and jumps to `next`), and leaves the builder where they do not, for the compare
    /// thread by thread.
    pub(super) fn affine_compare64(&mut self, pc: usize, next: Block) {
        let Op::Setp {
            cmp,
            ty,
            a,
            b,
            p: d,
            q,
            combine: None,
            ..
        } = self.t.code.insts[pc].op
        else {
            return;
        };
        if ty.size() != 8 || self.def_shape() != Shape::Varying || self.width(d) != Width::W32 {
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
        let k = match (self.shape(a), self.shape(b)) {
            (Shape::Affine(k), Shape::Uniform) | (Shape::Uniform, Shape::Affine(k)) => k,
            _ => return,
        };
        let last = self.group_width() - 1;
        let (a0, al) = (self.lane64(a, 0), self.lane64(a, last));
        let (b0, bl) = (self.lane64(b, 0), self.lane64(b, last));
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
        let decided = self.b.ins().band(same, in_order);
        let (whole, each) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(decided, whole, &[], each, &[]);

        self.b.switch_to_block(whole);
        let r = self.b.ins().uextend(types::I32, first);
        self.set_every(d, r);
        if q != SINK {
            let not = self.b.ins().bxor_imm_u(r, 1);
            self.set_every(q, not);
        }
        self.b.ins().jump(next, &[]);

        self.b.switch_to_block(each);
    }
}
