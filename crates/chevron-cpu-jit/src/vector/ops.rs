//! The group form of each instruction the plan admits (once per `i32x4` of a varying 32-bit
//! result, once per thread of a varying 64-bit one), with the interpreter's register
//! conventions: 32-bit results are their low 32 bits (zero-extended when read as 64), f32
//! results that are NaN are the GPU's canonical NaN.

use std::mem::offset_of;

use chevron_ptx::ir::{Op as IrOp, Rounding, ScalarType as T};
use chevron_ptx::lowered::{AddrBase, Collective, FloatOp, IntBin, IntTer, IntUn, Op, Src, SINK};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, Endianness, InstBuilder, MemFlagsData, Value};

use super::access::Access;
use super::plan::Width;
use super::shapes::Shape;
use super::{Lane, VectorEmitter};
use crate::context::BlockContext;

/// Bitcasts between `i32x4` and `f32x4` (the same bits, lane for lane).
pub(super) fn lanes() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl VectorEmitter<'_, '_, '_> {
    /// Emits instruction `pc` (its guard passed for all four threads); `next` follows it.
    pub(super) fn operation(&mut self, pc: usize, next: Block) {
        let op = &self.t.code.insts[pc].op;
        match op {
            Op::Bra { target } => {
                self.branch(pc, *target as usize);
                return;
            }
            Op::Ret | Op::Exit => {
                self.exit_group();
                return;
            }
            Op::Bar { .. } => {
                self.barrier(pc + 1);
                return;
            }
            // The plan admits it in groups of a whole warp only, whose lanes run in step.
            Op::Warp {
                c: Collective::WarpSync,
                ..
            } => {}
            Op::Warp { .. } if self.group_width() == super::permute::WARP_GROUP => {
                self.shuffle_in_group(pc);
                return;
            }
            Op::Warp { .. } => {
                self.offer_shuffle(pc);
                return;
            }
            Op::Atom { .. } => self.atomic_lanes(pc, op),
            Op::Pack { .. } | Op::Unpack { .. } => self.packing(pc),
            Op::Ld { addr, .. } | Op::St { addr, .. }
                if addr.base != AddrBase::KernelParam && !super::elements::plain(op) =>
            {
                self.elements(pc);
            }
            Op::Nop => {}
            Op::Ld {
                space,
                bits,
                ds,
                addr,
                ..
            } if addr.base != AddrBase::KernelParam => {
                self.access(pc, *space, addr, *bits, Access::Load(ds[0]));
            }
            Op::St {
                space,
                bits,
                addr,
                srcs,
            } => {
                self.access(pc, *space, addr, *bits, Access::Store(srcs[0]));
            }
            _ if self.t.plan.evaluated.contains(&pc) => {
                self.widening_guard(pc);
                self.evaluated(pc);
            }
            _ => {
                self.widening_guard(pc);
                self.compute(pc);
            }
        }
        self.b.ins().jump(next, &[]);
    }

    /// Defines what instruction `pc` (arithmetic, a move, a parameter load: no access, no
    /// control flow) writes, in its shape's form (`self.pc` is `pc`).
    pub(super) fn compute(&mut self, pc: usize) {
        let op = &self.t.code.insts[pc].op;
        let d = self.t.code.insts[pc].operands().writes[0];
        let forms: Vec<Lane> = match (self.def_shape(), self.width(d)) {
            (Shape::Varying, Width::W64) => {
                let v: Vec<Value> = (0..self.group_width())
                    .map(|i| self.eval(pc, Lane::One(i)))
                    .collect();
                self.set_lanes(d, &v);
                return;
            }
            (Shape::Varying, Width::W32) => (0..self.p).map(Lane::Vector).collect(),
            _ => vec![Lane::Zero],
        };
        for lane in forms {
            let v = self.eval(pc, lane);
            self.set(d, lane, v);
            if let Op::Setp { q, .. } = op {
                // `q` is `p`'s negation, of the same shape.
                if *q != SINK {
                    let one = self.konst(lane, 1);
                    let qv = self.b.ins().bxor(v, one);
                    self.set(*q, lane, qv);
                }
            }
        }
    }

    /// A widening of an affine 32-bit operand: its four values must not wrap (their widened
    /// values must be affine too), else the group goes on in the scalar code.
    fn widening_guard(&mut self, pc: usize) {
        let op = &self.t.code.insts[pc].op;
        let signed = match op {
            Op::IntBin { t, .. } | Op::IntTer { t, .. } => t.is_signed(),
            Op::Cvt { src, .. } => src.is_signed(),
            _ => false,
        };
        for a in super::shapes::widens(op) {
            let Shape::Affine(k) = self.shape(*a) else {
                continue;
            };
            // Thread i holds v0 + i·k, wrapped to 32 bits: the group's threads widen to an
            // affine sequence exactly when v0 + (W-1)k stays in the extension's range, one
            // compare of v0 with a bound (|31k| < 2^29, so the bound is a 32-bit value).
            let span = i64::from(self.group_width() - 1) * k;
            let (cc, bound) = match (signed, span > 0) {
                (false, true) => (IntCC::UnsignedLessThanOrEqual, i64::from(u32::MAX) - span),
                (false, false) => (IntCC::UnsignedGreaterThanOrEqual, -span),
                (true, true) => (IntCC::SignedLessThanOrEqual, i64::from(i32::MAX) - span),
                (true, false) => (IntCC::SignedGreaterThanOrEqual, i64::from(i32::MIN) - span),
            };
            if span == 0 {
                continue;
            }
            let v0 = self.lane32(*a, 0);
            let bound = self
                .b
                .ins()
                .iconst(types::I32, i64::from(bound as u32 as i32));
            let ok = self.b.ins().icmp(cc, v0, bound);
            let go = self.b.create_block();
            let parted = self.exit_block(pc);
            self.b.ins().brif(ok, go, &[], parted, &[]);
            self.b.switch_to_block(go);
        }
    }

    fn extend(&mut self, v: Value, signed: bool) -> Value {
        if signed {
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.ins().uextend(types::I64, v)
        }
    }

    /// A 32-bit constant in `lane`'s form.
    pub(super) fn konst(&mut self, lane: Lane, v: i32) -> Value {
        if matches!(lane, Lane::Vector(_)) {
            self.vconst([v; 4])
        } else {
            self.b.ins().iconst(types::I32, i64::from(v))
        }
    }

    /// The value instruction `pc` writes to its (first) register, in `lane`'s form: 32-bit
    /// results as `i32` or `i32x4`, 64-bit ones as `i64` (never [`Lane::Vector`]).
    fn eval(&mut self, pc: usize, lane: Lane) -> Value {
        let op = &self.t.code.insts[pc].op;
        let vector = matches!(lane, Lane::Vector(_));
        match op {
            Op::Mov { d, a, bits } => {
                // A 64-bit constant in a 32-bit register: a predicate (`plan.rs`).
                if *bits == 64 && self.width(*d) == Width::W64 {
                    self.get64(*a, lane)
                } else {
                    self.get32(*a, lane)
                }
            }
            Op::Cvta { a, .. } => self.get64(*a, lane),
            Op::Cvt {
                dst,
                src,
                a,
                options,
                ..
            } if dst.is_float() || src.is_float() => {
                // f32 ↔ 32-bit integer, and f32's `.sat` (the plan admits no other float
                // conversion).
                let x = self.get32(*a, lane);
                let (fty, ity) = if vector {
                    (types::F32X4, types::I32X4)
                } else {
                    (types::F32, types::I32)
                };
                if dst.is_float() && src.is_float() {
                    let f = self.b.ins().bitcast(fty, lanes(), x);
                    self.saturate(f)
                } else if dst.is_float() {
                    let f = if src.is_signed() {
                        self.b.ins().fcvt_from_sint(fty, x)
                    } else {
                        self.b.ins().fcvt_from_uint(fty, x)
                    };
                    self.b.ins().bitcast(ity, lanes(), f)
                } else {
                    let f = self.b.ins().bitcast(fty, lanes(), x);
                    // Rounded to an integer first, as `.rni`/`.rmi`/`.rpi` say (`.rzi`, the
                    // default, is the conversion's own).
                    let f = match options.rnd {
                        Some(Rounding::Rni) => self.b.ins().nearest(f),
                        Some(Rounding::Rmi) => self.b.ins().floor(f),
                        Some(Rounding::Rpi) => self.b.ins().ceil(f),
                        _ => f,
                    };
                    if dst.is_signed() {
                        self.b.ins().fcvt_to_sint_sat(ity, f)
                    } else {
                        self.b.ins().fcvt_to_uint_sat(ity, f)
                    }
                }
            }
            Op::PredLogic { op, a, b, .. } => {
                let (x, y) = (self.get32(*a, lane), self.get32(*b, lane));
                let v = match op {
                    IrOp::And => self.b.ins().band(x, y),
                    IrOp::Or => self.b.ins().bor(x, y),
                    _ => self.b.ins().bxor(x, y),
                };
                let one = self.konst(lane, 1);
                self.b.ins().band(v, one)
            }
            Op::Cvt { dst, src, a, .. } => {
                if dst.size() == 8 && src.size() == 4 {
                    let x = self.get32(*a, lane);
                    self.extend(x, src.is_signed())
                } else if dst.size() == 8 {
                    self.get64(*a, lane)
                } else {
                    self.get32(*a, lane)
                }
            }
            Op::Ld {
                bits, signed, addr, ..
            } => {
                // A kernel parameter (the plan admits no other load here), extended to its
                // register's width as the interpreter extends it.
                let params = self.load_fixed(types::I64, offset_of!(BlockContext, params));
                let flags = MemFlagsData::trusted().with_readonly().with_can_move();
                let ty = match bits {
                    8 => types::I8,
                    16 => types::I16,
                    32 => types::I32,
                    _ => types::I64,
                };
                let v = self.b.ins().load(ty, flags, params, addr.offset as i32);
                let v = match (*bits, *signed) {
                    (64, _) => v,
                    (_, true) => self.b.ins().sextend(types::I64, v),
                    (32, false) => v,
                    (_, false) => self.b.ins().uextend(types::I32, v),
                };
                if vector {
                    self.b.ins().splat(types::I32X4, v)
                } else {
                    v
                }
            }
            Op::IntBin { k, t, a, b, .. } => self.int_bin(*k, *t, *a, *b, lane),
            Op::IntTer { k, t, a, b, c, .. } => {
                if *k == IntTer::MadWide {
                    let (x, y) = (self.get32(*a, lane), self.get32(*b, lane));
                    let (x, y) = (self.extend(x, t.is_signed()), self.extend(y, t.is_signed()));
                    let m = self.b.ins().imul(x, y);
                    let z = self.get64(*c, lane);
                    self.b.ins().iadd(m, z)
                } else if t.size() == 8 {
                    let (x, y, z) = (
                        self.get64(*a, lane),
                        self.get64(*b, lane),
                        self.get64(*c, lane),
                    );
                    let m = self.b.ins().imul(x, y);
                    self.b.ins().iadd(m, z)
                } else {
                    let (x, y, z) = (
                        self.get32(*a, lane),
                        self.get32(*b, lane),
                        self.get32(*c, lane),
                    );
                    let m = self.b.ins().imul(x, y);
                    self.b.ins().iadd(m, z)
                }
            }
            Op::Setp { cmp, ty, a, b, .. } if *ty == T::F32 => {
                let fty = if vector { types::F32X4 } else { types::F32 };
                let f = |e: &mut Self, s: Src| {
                    let v = e.get32(s, lane);
                    e.b.ins().bitcast(fty, lanes(), v)
                };
                let (x, y) = (f(self, *a), f(self, *b));
                // x86 compares directly only in the plain forms, `num` and `nan`; the others
                // are a plain form negated or two combined.
                let (cc, negated, with) = super::float::float_cc(*cmp);
                let mut r = self.b.ins().fcmp(cc, x, y);
                if let Some((other, and)) = with {
                    let s = self.b.ins().fcmp(other, x, y);
                    r = if and {
                        self.b.ins().band(r, s)
                    } else {
                        self.b.ins().bor(r, s)
                    };
                }
                if negated {
                    r = self.b.ins().bnot(r);
                }
                if vector {
                    let one = self.vconst([1; 4]);
                    self.b.ins().band(r, one)
                } else {
                    let r = self.b.ins().band_imm_u(r, 1);
                    self.b.ins().uextend(types::I32, r)
                }
            }
            Op::Setp { cmp, ty, a, b, .. } => {
                // The plan admits no `num` or `nan` on integers.
                let cc = crate::codegen::int_cc(*cmp, *ty).unwrap_or(IntCC::Equal);
                if ty.size() == 8 {
                    // 64-bit operands: per thread, gathered when all four are wanted.
                    let per = |e: &mut Self, i: u8| {
                        let (x, y) = (e.lane64(*a, i), e.lane64(*b, i));
                        let r = e.b.ins().icmp(cc, x, y);
                        e.b.ins().uextend(types::I32, r)
                    };
                    match lane {
                        Lane::Vector(j) => {
                            let lanes: Vec<Value> = (0..4).map(|i| per(self, 4 * j + i)).collect();
                            self.gather(&lanes)
                        }
                        Lane::One(i) => per(self, i),
                        Lane::Zero => per(self, 0),
                    }
                } else {
                    let (mut x, mut y) = (self.get32(*a, lane), self.get32(*b, lane));
                    if ty.size() < 4 {
                        // 8 or 16 bits: in the top of the lane, compared as the type says.
                        let shift = 32 - 8 * ty.size() as i64;
                        x = self.b.ins().ishl_imm_u(x, shift);
                        y = self.b.ins().ishl_imm_u(y, shift);
                    }
                    let r = self.b.ins().icmp(cc, x, y);
                    if vector {
                        let one = self.vconst([1; 4]);
                        self.b.ins().band(r, one)
                    } else {
                        self.b.ins().uextend(types::I32, r)
                    }
                }
            }
            Op::Selp { bits, a, b, c, .. } => {
                let cv = self.get32(*c, lane);
                let one = self.konst(lane, 1);
                let bit = self.b.ins().band(cv, one);
                if let Lane::Vector(j) = lane {
                    let zero = self.vconst([0; 4]);
                    let mask = self.b.ins().icmp(IntCC::NotEqual, bit, zero);
                    let (x, y) = (self.vec32(*a, j), self.vec32(*b, j));
                    self.b.ins().bitselect(mask, x, y)
                } else if *bits == 64 {
                    let (x, y) = (self.get64(*a, lane), self.get64(*b, lane));
                    self.b.ins().select(bit, x, y)
                } else {
                    let (x, y) = (self.get32(*a, lane), self.get32(*b, lane));
                    self.b.ins().select(bit, x, y)
                }
            }
            Op::Float { op, a, b, c, .. } => {
                let fty = if vector { types::F32X4 } else { types::F32 };
                let f = |e: &mut Self, s: Src| {
                    let v = e.get32(s, lane);
                    e.b.ins().bitcast(fty, lanes(), v)
                };
                self.raw = true;
                let (x, y) = (f(self, *a), f(self, *b));
                let z = (*op == FloatOp::Fma).then(|| f(self, *c));
                self.raw = false;
                let r = match (op, z) {
                    (FloatOp::Add, _) => self.b.ins().fadd(x, y),
                    (FloatOp::Sub, _) => self.b.ins().fsub(x, y),
                    (FloatOp::Min { .. } | FloatOp::Max { .. }, _) => {
                        let max = matches!(op, FloatOp::Max { .. });
                        self.min_max(max, x, y)
                    }
                    (FloatOp::Div, _) => self.b.ins().fdiv(x, y),
                    (FloatOp::Sqrt, _) => self.b.ins().sqrt(x),
                    (FloatOp::Rcp, _) => {
                        let one = self.f32_splat(vector, 1.0);
                        self.b.ins().fdiv(one, x)
                    }
                    (FloatOp::Neg, _) => self.b.ins().fneg(x),
                    (FloatOp::Abs, _) => self.b.ins().fabs(x),
                    (_, Some(z)) => self.b.ins().fma(x, y, z),
                    _ => self.b.ins().fmul(x, y),
                };
                let ity = if vector { types::I32X4 } else { types::I32 };
                let bits = self.b.ins().bitcast(ity, lanes(), r);
                let d = self.t.code.insts[pc].operands().writes[0];
                if self.lazy.get(d as usize) == Some(&true) {
                    // Made canonical where it is read.
                    bits
                } else {
                    self.canonical_nan(bits)
                }
            }
            Op::Bfi {
                bits, a, b, c, e, ..
            } => self.bfi(*bits, [*a, *b, *c, *e], lane),
            // `not`, else `neg` (the plan admits no other one-operand integer instruction).
            Op::IntUn {
                k: IntUn::Not,
                t,
                a,
                ..
            } => self.not(*t, *a, lane),
            Op::IntUn { t, a, .. } => self.neg(*t, *a, lane),
            // The plan admits nothing else that writes a register.
            _ => self.konst(lane, 0),
        }
    }

    fn int_bin(&mut self, k: IntBin, t: T, a: Src, b: Src, lane: Lane) -> Value {
        if k == IntBin::MulWide {
            let (x, y) = (self.get32(a, lane), self.get32(b, lane));
            let (x, y) = (self.extend(x, t.is_signed()), self.extend(y, t.is_signed()));
            return self.b.ins().imul(x, y);
        }
        let amount = match b {
            Src::Imm(v) => v & 0xffff_ffff,
            _ => 0,
        };
        let wide = t.size() == 8;
        let bits = if wide { 64 } else { 32 };
        let x = if wide {
            self.get64(a, lane)
        } else {
            self.get32(a, lane)
        };
        let ity = if wide { types::I64 } else { types::I32 };
        if matches!(k, IntBin::Shl | IntBin::Shr) && !matches!(b, Src::Imm(_)) {
            let uniform = self.shape(b) == Shape::Uniform;
            if let (Lane::Vector(j), false) = (lane, uniform) {
                // By four amounts (x86 has no shift of each lane by its own before AVX2):
                // lane by lane.
                let amounts = self.get32(b, lane);
                let lanes: Vec<Value> = (0..4u8)
                    .map(|i| {
                        let xi = self.b.ins().extractlane(x, i);
                        let n = self.b.ins().extractlane(amounts, i);
                        self.shift_by(k, t.is_signed(), xi, n, bits, Lane::One(4 * j + i))
                    })
                    .collect();
                return self.gather(&lanes);
            }
            let n = self.get32(b, if uniform { Lane::Zero } else { lane });
            return self.shift_by(k, t.is_signed(), x, n, bits, lane);
        }
        match k {
            IntBin::Shl | IntBin::Shr if amount >= bits => {
                if k == IntBin::Shr && t.is_signed() {
                    let n = self.b.ins().iconst(ity, (bits - 1) as i64);
                    self.b.ins().sshr(x, n)
                } else if wide {
                    self.b.ins().iconst(types::I64, 0)
                } else {
                    self.konst(lane, 0)
                }
            }
            IntBin::Shl | IntBin::Shr => {
                let n = self.b.ins().iconst(ity, amount as i64);
                match (k, t.is_signed()) {
                    (IntBin::Shl, _) => self.b.ins().ishl(x, n),
                    (_, true) => self.b.ins().sshr(x, n),
                    _ => self.b.ins().ushr(x, n),
                }
            }
            _ => {
                let y = if wide {
                    self.get64(b, lane)
                } else {
                    self.get32(b, lane)
                };
                self.wrapping_or_order(k, t, x, y)
            }
        }
    }

    /// `x k y` for the wrapping operations and min/max, on vectors or scalars alike.
    fn wrapping_or_order(&mut self, k: IntBin, t: T, x: Value, y: Value) -> Value {
        let signed = t.is_signed();
        match k {
            IntBin::Add => self.b.ins().iadd(x, y),
            IntBin::Sub => self.b.ins().isub(x, y),
            IntBin::MulLo => self.b.ins().imul(x, y),
            IntBin::And => self.b.ins().band(x, y),
            IntBin::Or => self.b.ins().bor(x, y),
            IntBin::Xor => self.b.ins().bxor(x, y),
            IntBin::Min if signed => self.b.ins().smin(x, y),
            IntBin::Min => self.b.ins().umin(x, y),
            IntBin::Max if signed => self.b.ins().smax(x, y),
            _ => self.b.ins().umax(x, y),
        }
    }

    /// A branch to `target`: backward branches burn fuel, and a group out of it goes on in
    /// the scalar code (which looks at the stop flag and at spinning).
    fn branch(&mut self, pc: usize, target: usize) {
        let counted = crate::codegen::ends_by_itself(&self.t.code.insts, pc, target);
        if target <= pc && !counted {
            let fuel = self.b.use_var(self.fuel);
            let left = self.b.ins().iadd_imm_u(fuel, -1);
            self.b.def_var(self.fuel, left);
            let go = self.b.create_block();
            let out = self.exit_block(pc);
            self.b.ins().brif(left, go, &[], out, &[]);
            self.b.switch_to_block(go);
        }
        match self.loop_bodies.get(&target) {
            // A hoisted loop's own branch: past its entry check.
            Some(&(body, index)) if self.t.plan.loops[index].end == pc => {
                self.b.ins().jump(body, &[]);
            }
            _ => self.jump_to_pc(target),
        }
    }
}
