//! Instructions the vector code has no form of its own for, whose threads' values come from
//! the interpreter's arithmetic: one call of [`crate::context::evaluate_lanes`] computes a
//! whole group's (the operands stored to a stack slot, the results loaded back), one of
//! `evaluate` a uniform value. A kernel whose loop divides in double precision, rounds with
//! `cvt.rni` or takes `ex2.approx` keeps its other instructions four-wide instead of running
//! one thread at a time, and gets the interpreter's bits, as the scalar code does.

use chevron_ptx::lowered::{IntBin, IntTer, IntUn, Op, Src, SINK};
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, VectorEmitter};

/// The width of what `op` writes when each thread's value comes from `evaluate`, if `evaluate`
/// computes it: pure instructions of one destination whose result fits the width (32-bit and
/// narrower results are held zero-extended, as the interpreter holds them).
pub(super) fn width(op: &Op) -> Option<Width> {
    let by_size = |size: u32| {
        if size == 8 {
            Width::W64
        } else {
            Width::W32
        }
    };
    Some(match op {
        Op::Float { m, .. } => by_size(m.ty.size()),
        Op::Cvt { dst, .. } if dst.size() <= 8 => by_size(dst.size()),
        Op::Setp {
            ty, combine: None, ..
        } if ty.is_float() => Width::W32,
        Op::IntUn {
            k: IntUn::Popc | IntUn::Clz | IntUn::Bfind { .. },
            ..
        } => Width::W32,
        Op::IntUn { t, .. } => by_size(t.size()),
        Op::IntBin {
            k:
                IntBin::AddSat
                | IntBin::SubSat
                | IntBin::MulHi
                | IntBin::Mul24Lo
                | IntBin::Mul24Hi
                | IntBin::Div
                | IntBin::Rem
                | IntBin::Min
                | IntBin::Max
                | IntBin::MinRelu
                | IntBin::MaxRelu,
            t,
            ..
        }
        | Op::IntTer {
            k: IntTer::MadHi | IntTer::MadHiSat | IntTer::Mad24Lo | IntTer::Mad24Hi | IntTer::Sad,
            t,
            ..
        } => by_size(t.size()),
        Op::Prmt { .. } | Op::Shf { .. } | Op::Lop3 { .. } => Width::W32,
        _ => return None,
    })
}

/// The operands `evaluate` takes for `op`, in its order (`a`, `b`, `c`).
fn operands(op: &Op) -> [Src; 3] {
    let zero = Src::Imm(0);
    match *op {
        Op::Float { a, b, c, .. } | Op::IntTer { a, b, c, .. } => [a, b, c],
        Op::Prmt { a, b, c, .. } | Op::Shf { a, b, c, .. } | Op::Lop3 { a, b, c, .. } => [a, b, c],
        Op::Setp { a, b, .. } | Op::IntBin { a, b, .. } => [a, b, zero],
        Op::Cvt { a, .. } | Op::IntUn { a, .. } => [a, zero, zero],
        _ => [zero; 3],
    }
}

impl VectorEmitter<'_, '_, '_> {
    /// Thread `lane`'s value of the instruction at `pc` (64 bits, as `evaluate` returns it).
    fn evaluate_one(&mut self, pc: usize, lane: u8) -> Value {
        let srcs = operands(&self.t.code.insts[pc].op);
        let args: Vec<Value> = srcs.iter().map(|&s| self.lane64(s, lane)).collect();
        let op = crate::codegen::op_address(self.b, self.ctx, pc);
        let call = self
            .b
            .ins()
            .call(self.t.evaluate, &[op, args[0], args[1], args[2]]);
        self.b.inst_results(call)[0]
    }

    /// Writes the destination of the instruction at `pc` (which [`width`] admits): one call
    /// for a uniform value, one for the group's when it varies.
    pub(super) fn evaluated(&mut self, pc: usize) {
        let d = self.t.code.insts[pc].operands().writes[0];
        let wide = self.width(d) == Width::W64;
        if self.def_shape() != Shape::Varying {
            let v = self.evaluate_one(pc, 0);
            let v = if wide {
                v
            } else {
                self.b.ins().ireduce(types::I32, v)
            };
            self.set(d, Lane::Zero, v);
            return self.set_negation(pc, Lane::Zero, v);
        }
        // Four regions of `n` eight-byte elements: `a`, `b`, `c` and the results, each thread's
        // value at its index (a 32-bit value in the low half of its element).
        let n = u32::from(self.group_width());
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            32 * n,
            4,
        ));
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let srcs = operands(&self.t.code.insts[pc].op);
        for (k, &s) in srcs.iter().enumerate() {
            let region = (k as u32 * 8 * n) as i32;
            for i in 0..self.group_width() {
                let v = self.lane64(s, i);
                self.b
                    .ins()
                    .store(mem(), v, base, region + 8 * i32::from(i));
            }
        }
        let op = crate::codegen::op_address(self.b, self.ctx, pc);
        let count = self.b.ins().iconst(types::I64, i64::from(n));
        self.b.ins().call(self.t.evaluate_lanes, &[op, base, count]);
        let results = (3 * 8 * n) as i32;
        if wide {
            let v: Vec<Value> = (0..self.group_width())
                .map(|i| {
                    self.b
                        .ins()
                        .load(types::I64, mem(), base, results + 8 * i32::from(i))
                })
                .collect();
            return self.set_lanes(d, &v);
        }
        for j in 0..self.p {
            let lanes: Vec<Value> = (0..4)
                .map(|i| {
                    let at = results + 8 * (4 * i32::from(j) + i);
                    self.b.ins().load(types::I32, mem(), base, at)
                })
                .collect();
            let v = self.gather(&lanes);
            self.set(d, Lane::Vector(j), v);
            self.set_negation(pc, Lane::Vector(j), v);
        }
    }

    /// A `setp`'s second destination, the first's negation `v ^ 1` (of the same shape).
    fn set_negation(&mut self, pc: usize, lane: Lane, v: Value) {
        if let Op::Setp { q, .. } = self.t.code.insts[pc].op {
            if q != SINK {
                let one = self.konst(lane, 1);
                let negated = self.b.ins().bxor(v, one);
                self.set(q, lane, negated);
            }
        }
    }
}
