//! Operands of the vector function: a register's value in the form an instruction needs it
//! (thread 0's, thread `i`'s, or threads `4j .. 4j+3`'s as an `i32x4`), from the variables
//! that hold it in its shape at that instruction; and writes to registers.

use std::mem::offset_of;

use chevron_ptx::lowered::{Special, Src};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, Vars, VectorEmitter};
use crate::context::BlockContext;

impl VectorEmitter<'_, '_, '_> {
    /// Thread 0's value of a special register (the plan admits `%tid`, `%ntid`, `%ctaid`,
    /// `%nctaid` and the grid-synchronisation workspace), 32 bits.
    fn special(&mut self, sp: Special) -> Value {
        match sp {
            Special::Tid(d) => {
                let g = self.b.use_var(self.group);
                let base = self.load_fixed(types::I64, offset_of!(BlockContext, tids));
                let shift = self.log_width() + 4;
                let off = self.b.ins().ishl_imm_u(g, shift);
                let addr = self.b.ins().iadd(base, off);
                self.b.ins().load(types::I32, mem(), addr, i32::from(d) * 4)
            }
            Special::Ntid(d) => {
                self.load_fixed(types::I32, offset_of!(BlockContext, ntid) + 4 * d as usize)
            }
            Special::Ctaid(d) => {
                self.load_fixed(types::I32, offset_of!(BlockContext, ctaid) + 4 * d as usize)
            }
            Special::Nctaid(d) => self.load_fixed(
                types::I32,
                offset_of!(BlockContext, nctaid) + 4 * d as usize,
            ),
            // The group's first thread's lane: its index in the block (the group's index times
            // its size) modulo 32.
            Special::Laneid => {
                let g = self.b.use_var(self.group);
                let shift = self.log_width();
                let first = self.b.ins().ishl_imm_u(g, shift);
                let lane = self.b.ins().band_imm_u(first, 31);
                self.b.ins().ireduce(types::I32, lane)
            }
            // The grid-synchronisation workspace's address, high or low half.
            Special::WorkspaceHi | Special::WorkspaceLo => {
                let v = self.load_fixed(types::I64, offset_of!(BlockContext, workspace));
                let v = if sp == Special::WorkspaceHi {
                    self.b.ins().ushr_imm_u(v, 32)
                } else {
                    v
                };
                self.b.ins().ireduce(types::I32, v)
            }
            _ => self.b.ins().iconst(types::I32, 0),
        }
    }

    /// The shape of an operand at the current instruction.
    pub(super) fn shape(&self, s: Src) -> Shape {
        self.t.plan.shapes.of(self.pc, &s)
    }

    /// The shape of what the current instruction writes.
    pub(super) fn def_shape(&self) -> Shape {
        self.t.plan.shapes.defs[self.pc]
    }

    /// The variables holding register `r` at the current instruction.
    pub(super) fn vars_of(&self, r: u32) -> Vars {
        if self.shape(Src::Reg(r)) == Shape::Varying {
            self.vectors[r as usize].clone()
        } else {
            Vars::Scalar(self.scalars[r as usize])
        }
    }

    fn is_wide(&self, s: Src) -> bool {
        matches!(s, Src::Reg(r) if self.width(r) == Width::W64)
    }

    /// Thread 0's value of an operand, 32 bits.
    fn lane0_32_raw(&mut self, s: Src) -> Value {
        match s {
            Src::Reg(r) => match self.vars_of(r) {
                Vars::Scalar(v) => {
                    let x = self.b.use_var(v);
                    if self.width(r) == Width::W64 {
                        self.b.ins().ireduce(types::I32, x)
                    } else {
                        x
                    }
                }
                Vars::Vec32(vs) => {
                    let x = self.b.use_var(vs[0]);
                    self.b.ins().extractlane(x, 0)
                }
                Vars::Lanes64(vs) => {
                    let x = self.b.use_var(vs[0]);
                    self.b.ins().ireduce(types::I32, x)
                }
            },
            Src::Imm(v) => self.b.ins().iconst(types::I32, i64::from(v as u32 as i32)),
            Src::Special(sp) => self.special(sp),
            _ => self.b.ins().iconst(types::I32, 0),
        }
    }

    /// Thread `lane`'s value of an operand, 32 bits.
    fn lane32_raw(&mut self, s: Src, lane: u8) -> Value {
        if let Src::Reg(r) = s {
            match self.vars_of(r) {
                Vars::Vec32(vs) => {
                    let x = self.b.use_var(vs[usize::from(lane / 4)]);
                    return self.b.ins().extractlane(x, lane % 4);
                }
                Vars::Lanes64(vs) => {
                    let x = self.b.use_var(vs[usize::from(lane)]);
                    return self.b.ins().ireduce(types::I32, x);
                }
                Vars::Scalar(_) => {}
            }
        }
        let v0 = self.lane0_32_raw(s);
        match self.shape(s) {
            Shape::Affine(k) if lane > 0 => self.b.ins().iadd_imm_u(v0, k * i64::from(lane)),
            _ => v0,
        }
    }

    /// Thread 0's value of an operand, 32 bits.
    pub(super) fn lane0_32(&mut self, s: Src) -> Value {
        let v = self.lane0_32_raw(s);
        self.observed(s, v)
    }

    /// Thread `lane`'s value of an operand, 32 bits.
    pub(super) fn lane32(&mut self, s: Src, lane: u8) -> Value {
        let v = self.lane32_raw(s, lane);
        self.observed(s, v)
    }

    /// Threads `4j .. 4j+3`'s values of an operand as an `i32x4`.
    pub(super) fn vec32(&mut self, s: Src, j: u8) -> Value {
        let v = self.vec32_raw(s, j);
        self.observed(s, v)
    }

    /// `v`, operand `s`'s value: a register whose NaNs are made canonical where it is read
    /// (an f32 accumulator) has them made so here, unless f32 arithmetic reads it
    /// ([`VectorEmitter::raw`]), which keeps a NaN a NaN.
    fn observed(&mut self, s: Src, v: Value) -> Value {
        match s {
            Src::Reg(r) if !self.raw && self.lazy.get(r as usize) == Some(&true) => {
                self.canonical_nan(v)
            }
            _ => v,
        }
    }

    /// `v` (f32 bits, `i32` or `i32x4`) with a NaN replaced by the GPU's canonical NaN.
    pub(super) fn canonical_nan(&mut self, v: Value) -> Value {
        let vector = self.b.func.dfg.value_type(v) == types::I32X4;
        let (fty, canonical) = if vector {
            (types::F32X4, self.vconst([0x7fff_ffff; 4]))
        } else {
            (types::F32, self.b.ins().iconst(types::I32, 0x7fff_ffff))
        };
        let f = self.b.ins().bitcast(fty, super::ops::lanes(), v);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
        if vector {
            self.b.ins().bitselect(nan, canonical, v)
        } else {
            self.b.ins().select(nan, canonical, v)
        }
    }

    /// Thread `lane`'s value of an operand, 64 bits (32-bit values zero-extended, as the
    /// interpreter holds them).
    pub(super) fn lane64(&mut self, s: Src, lane: u8) -> Value {
        if !self.is_wide(s) {
            if let Src::Imm(v) = s {
                return self.b.ins().iconst(types::I64, v as i64);
            }
            let x = self.lane32(s, lane);
            return self.b.ins().uextend(types::I64, x);
        }
        let Src::Reg(r) = s else {
            return self.b.ins().iconst(types::I64, 0);
        };
        match self.vars_of(r) {
            Vars::Lanes64(vs) => self.b.use_var(vs[usize::from(lane)]),
            Vars::Scalar(v) => {
                let v0 = self.b.use_var(v);
                match self.shape(s) {
                    Shape::Affine(k) if lane > 0 => {
                        self.b.ins().iadd_imm_u(v0, k * i64::from(lane))
                    }
                    _ => v0,
                }
            }
            Vars::Vec32(_) => self.b.ins().iconst(types::I64, 0),
        }
    }

    /// Threads `4j .. 4j+3`'s values of an operand as an `i32x4`.
    fn vec32_raw(&mut self, s: Src, j: u8) -> Value {
        if let Src::Reg(r) = s {
            match self.vars_of(r) {
                Vars::Vec32(vs) => return self.b.use_var(vs[usize::from(j)]),
                Vars::Lanes64(_) => {
                    let lanes: Vec<Value> = (0..4).map(|i| self.lane32_raw(s, 4 * j + i)).collect();
                    return self.gather(&lanes);
                }
                Vars::Scalar(_) => {}
            }
        }
        let v0 = self.lane0_32_raw(s);
        let v = self.b.ins().splat(types::I32X4, v0);
        match self.shape(s) {
            Shape::Affine(k) => {
                let k = k as i32;
                let b = 4 * i32::from(j);
                let steps = self.vconst([b * k, (b + 1) * k, (b + 2) * k, (b + 3) * k]);
                self.b.ins().iadd(v, steps)
            }
            _ => v,
        }
    }

    /// An operand in the form `lane` asks for: 32 bits (a scalar, or an `i32x4`).
    pub(super) fn get32(&mut self, s: Src, lane: Lane) -> Value {
        match lane {
            Lane::Zero => self.lane32(s, 0),
            Lane::One(i) => self.lane32(s, i),
            Lane::Vector(j) => self.vec32(s, j),
        }
    }

    /// An operand in the form `lane` asks for, 64 bits (never [`Lane::Vector`]).
    pub(super) fn get64(&mut self, s: Src, lane: Lane) -> Value {
        match lane {
            Lane::One(i) => self.lane64(s, i),
            _ => self.lane64(s, 0),
        }
    }

    /// Writes register `d` in `lane`'s form: `v` is thread 0's value (uniform or affine), or
    /// for [`Lane::Vector`]`(j)` the `i32x4` of threads `4j .. 4j+3`; (`set_lanes`) an `i64`
    /// per thread.
    pub(super) fn set(&mut self, d: u32, lane: Lane, v: Value) {
        if d as usize >= self.scalars.len() {
            return;
        }
        if self.def_shape() != Shape::Varying {
            self.b.def_var(self.scalars[d as usize], v);
        } else if let Vars::Vec32(vars) = &self.vectors[d as usize] {
            let j = match lane {
                Lane::Vector(j) => usize::from(j),
                _ => 0,
            };
            self.b.def_var(vars[j], v);
        }
    }

    /// Writes register `d` with one 32-bit value for every thread (splat when it is varying).
    pub(super) fn set_every(&mut self, d: u32, v: Value) {
        if self.def_shape() != Shape::Varying {
            return self.set(d, Lane::Zero, v);
        }
        let v = self.b.ins().splat(types::I32X4, v);
        for j in 0..self.p {
            self.set(d, Lane::Vector(j), v);
        }
    }

    pub(super) fn set_lanes(&mut self, d: u32, v: &[Value]) {
        if let Some(Vars::Lanes64(vars)) = self.vectors.get(d as usize).cloned() {
            for (var, &x) in vars.iter().zip(v) {
                self.b.def_var(*var, x);
            }
        }
    }

    pub(super) fn width(&self, d: u32) -> Width {
        self.t
            .plan
            .widths
            .get(d as usize)
            .copied()
            .unwrap_or(Width::W32)
    }
}
