//! PTX registers as Cranelift variables, each of the type its values have.
//!
//! The interpreter keeps every register as 64 bits. A register whose every definition writes a
//! 32-bit float (f32 arithmetic, 32-bit loads, 32-bit moves and selects, all of which leave the
//! upper 32 bits zero) is an `f32` variable here instead: float arithmetic reads and writes it
//! in a float register, with no moves between the integer and float register files on the
//! way. Reading it as an integer gives its bits zero-extended, the interpreter's value exactly.

use chevron_ptx::ir::{Rounding, ScalarType as T};
use chevron_ptx::lowered::{FloatOp, Inst, Op, Src, SINK};
use cranelift_codegen::ir::condcodes::FloatCC;

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

/// How a register's value is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// 64 bits, as the interpreter holds it.
    Int,
    /// The low 32 bits as an `f32`; the upper 32 bits are always zero.
    F32,
    /// Computed again at each read (`remat.rs`): no variable holds it, and barriers do not
    /// save it.
    Remat,
}

impl Kind {
    pub(super) fn ty(self) -> Type {
        match self {
            Kind::Int | Kind::Remat => types::I64,
            Kind::F32 => types::F32,
        }
    }
}

/// The kind of each of `registers` registers of `insts`, and whether its NaNs are made
/// canonical when read rather than when written ([`Registers::read`]): a register only ever
/// written by inline f32 arithmetic (or a non-NaN constant). Such arithmetic gives a NaN
/// exactly where the GPU does (the payload aside), and a NaN operand gives a NaN again, so the
/// canonical NaN is needed only where the value leaves float arithmetic; an accumulator then
/// runs its whole loop without a check.
pub(super) fn kinds(insts: &[Inst], registers: u32) -> (Vec<Kind>, Vec<bool>) {
    let mut lazy = vec![true; registers as usize];
    for inst in insts {
        let plain = match &inst.op {
            Op::Float { m, op, .. } => {
                m.ty == T::F32
                    && m.rnd == Rounding::Rn
                    && !m.ftz
                    && !m.sat
                    && !m.relu
                    && matches!(
                        op,
                        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma
                    )
            }
            Op::Mov {
                a: Src::Imm(bits),
                bits: 32,
                ..
            } => !f32::from_bits(*bits as u32).is_nan(),
            _ => false,
        };
        for d in inst.operands().writes {
            if let Some(l) = lazy.get_mut(d as usize) {
                *l &= plain;
            }
        }
    }
    let kinds = kinds_alone(insts, registers);
    for (l, k) in lazy.iter_mut().zip(&kinds) {
        *l &= *k == Kind::F32;
    }
    (kinds, lazy)
}

fn kinds_alone(insts: &[Inst], registers: u32) -> Vec<Kind> {
    // Per register: every definition leaves a 32-bit float pattern, and f32 math writes or
    // reads it.
    let mut only_32 = vec![true; registers as usize];
    let mut float_math = vec![false; registers as usize];
    let count = registers as usize;
    let index = move |r: u32| (r != SINK).then_some(r as usize).filter(|&i| i < count);
    for inst in insts {
        let (defs, thirty_two, math): (Vec<u32>, bool, Vec<u32>) = match &inst.op {
            Op::Float {
                m, d, op, a, b, c, ..
            } => {
                let f32_math = m.ty == T::F32 && !matches!(op, FloatOp::RcpApproxFtzF64);
                let read = [a, b, c].into_iter().filter_map(|s| match s {
                    Src::Reg(r) if f32_math => Some(*r),
                    _ => None,
                });
                let touched = read.chain(f32_math.then_some(*d)).collect();
                (vec![*d], f32_math, touched)
            }
            Op::Ld {
                bits, signed, ds, ..
            } => (ds.to_vec(), *bits == 32 && !signed, Vec::new()),
            Op::Mov { d, bits, .. } | Op::Selp { d, bits, .. } => {
                (vec![*d], *bits <= 32, Vec::new())
            }
            // Any other operation writes integers (or nothing).
            _ => (inst.operands().writes, false, Vec::new()),
        };
        for i in defs.into_iter().filter_map(index) {
            only_32[i] &= thirty_two;
        }
        for i in math.into_iter().filter_map(index) {
            float_math[i] = true;
        }
    }
    only_32
        .iter()
        .zip(&float_math)
        .map(|(&only, &math)| if only && math { Kind::F32 } else { Kind::Int })
        .collect()
}

/// The registers of the function being built.
pub(super) struct Registers {
    vars: Vec<Variable>,
    kinds: Vec<Kind>,
    /// Per register: NaNs made canonical when read (see [`kinds`]).
    lazy: Vec<bool>,
}

impl Registers {
    /// Declares variables for registers of the given kinds; those in `remat` become
    /// [`Kind::Remat`].
    pub(super) fn declare(
        b: &mut FunctionBuilder<'_>,
        (mut kinds, mut lazy): (Vec<Kind>, Vec<bool>),
        remat: impl IntoIterator<Item = u32>,
    ) -> Registers {
        for r in remat {
            kinds[r as usize] = Kind::Remat;
            lazy[r as usize] = false;
        }
        let vars = kinds.iter().map(|k| b.declare_var(k.ty())).collect();
        Registers { vars, kinds, lazy }
    }

    /// Whether register `r` takes f32 arithmetic results with their NaNs as the host made them.
    pub(super) fn is_lazy(&self, r: u32) -> bool {
        self.lazy.get(r as usize).copied().unwrap_or(false)
    }

    pub(super) fn len(&self) -> usize {
        self.vars.len()
    }

    pub(super) fn kind(&self, r: u32) -> Kind {
        self.kinds[r as usize]
    }

    /// Register `r` as the interpreter holds it (64 bits); not for [`Kind::Remat`] registers
    /// (the emitter computes those).
    pub(super) fn read(&self, b: &mut FunctionBuilder<'_>, r: u32) -> Value {
        let v = b.use_var(self.vars[r as usize]);
        match self.kind(r) {
            Kind::Int | Kind::Remat => v,
            Kind::F32 => {
                let v = if self.is_lazy(r) {
                    canonical_nan(b, v)
                } else {
                    v
                };
                let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
                b.ins().uextend(types::I64, bits)
            }
        }
    }

    /// Register `r`'s value as an `f32` for anything but inline f32 arithmetic: its NaN made
    /// canonical.
    pub(super) fn read_f32_observed(&self, b: &mut FunctionBuilder<'_>, r: u32) -> Value {
        let v = self.read_f32(b, r);
        if self.is_lazy(r) {
            canonical_nan(b, v)
        } else {
            v
        }
    }

    /// The low 32 bits of register `r` as an `f32` (for a lazy register, as an operand of inline
    /// f32 arithmetic only).
    pub(super) fn read_f32(&self, b: &mut FunctionBuilder<'_>, r: u32) -> Value {
        let v = b.use_var(self.vars[r as usize]);
        match self.kind(r) {
            Kind::F32 => v,
            Kind::Int | Kind::Remat => f32_of(b, v),
        }
    }

    /// Sets register `r` to the 64-bit value `v` (for an `f32` register, one whose upper 32
    /// bits are zero).
    pub(super) fn write(&self, b: &mut FunctionBuilder<'_>, r: u32, v: Value) {
        if r == SINK {
            return;
        }
        let v = match self.kind(r) {
            Kind::Int => v,
            Kind::F32 => f32_of(b, v),
            Kind::Remat => return,
        };
        b.def_var(self.vars[r as usize], v);
    }

    /// Sets register `r` to the bits of the `f32` value `f`, zero-extended.
    pub(super) fn write_f32(&self, b: &mut FunctionBuilder<'_>, r: u32, f: Value) {
        if r == SINK {
            return;
        }
        let v = match self.kind(r) {
            Kind::F32 => f,
            Kind::Remat => return,
            Kind::Int => {
                let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), f);
                b.ins().uextend(types::I64, bits)
            }
        };
        b.def_var(self.vars[r as usize], v);
    }

    /// Sets every register to zero (a thread's start).
    pub(super) fn clear(&self, b: &mut FunctionBuilder<'_>) {
        let zero = b.ins().iconst(types::I64, 0);
        let zero_f32 = b.ins().f32const(0.0);
        for (var, kind) in self.vars.iter().zip(&self.kinds) {
            let v = match kind {
                Kind::Int | Kind::Remat => zero,
                Kind::F32 => zero_f32,
            };
            b.def_var(*var, v);
        }
    }

    /// Loads register `r` from its 8-byte slot at `base + 8 r` (an `f32` register from the low
    /// 4 bytes, little-endian).
    pub(super) fn load(&self, b: &mut FunctionBuilder<'_>, r: u32, base: Value) {
        if self.kind(r) == Kind::Remat {
            return;
        }
        let ty = self.kind(r).ty();
        let v = b
            .ins()
            .load(ty, MemFlagsData::trusted(), base, (r * 8) as i32);
        b.def_var(self.vars[r as usize], v);
    }

    /// Stores register `r` to its slot (an `f32` register to the low 4 bytes: the upper 4 are
    /// never written by anything, so they stay the zero they started as).
    pub(super) fn store(&self, b: &mut FunctionBuilder<'_>, r: u32, base: Value) {
        if self.kind(r) == Kind::Remat {
            return;
        }
        let v = b.use_var(self.vars[r as usize]);
        b.ins()
            .store(MemFlagsData::trusted(), v, base, (r * 8) as i32);
    }
}

/// The low 32 bits of the integer `v` as an `f32`.
pub(super) fn f32_of(b: &mut FunctionBuilder<'_>, v: Value) -> Value {
    let low = b.ins().ireduce(types::I32, v);
    b.ins().bitcast(types::F32, MemFlagsData::new(), low)
}

/// `f`, or the GPU's canonical NaN when `f` is a NaN. The NaN case is a branch to a cold block,
/// not a select: the result does not wait for the compare.
pub(super) fn canonical_nan(b: &mut FunctionBuilder<'_>, f: Value) -> Value {
    let is_nan = b.ins().fcmp(FloatCC::Unordered, f, f);
    let nan = b.create_block();
    let join = b.create_block();
    b.append_block_param(join, types::F32);
    b.ins().brif(is_nan, nan, &[], join, &[f.into()]);
    b.set_cold_block(nan);
    b.switch_to_block(nan);
    let bits = b.ins().iconst(types::I32, 0x7fff_ffff);
    let canonical = b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
    b.ins().jump(join, &[canonical.into()]);
    b.switch_to_block(join);
    b.block_params(join)[0]
}
