//! PTX registers as Cranelift variables, each of the type its values have.
//!
//! The interpreter keeps every register as 64 bits. A register whose every definition writes a
//! 32-bit float (f32 arithmetic, 32-bit loads, 32-bit moves and selects, all of which leave the
//! upper 32 bits zero) is an `f32` variable here instead: float arithmetic reads and writes it
//! in a float register, with no moves between the integer and float register files on the
//! way. Reading it as an integer gives its bits zero-extended, the interpreter's value exactly.

use chevron_ptx::interp::inst::{FloatOp, Inst, Op, Src, SINK};
use chevron_ptx::ir::ScalarType as T;
use cranelift_codegen::ir::{types, InstBuilder, MemFlags, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

/// How a register's value is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
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

/// The kind of each of `registers` registers of `insts`.
pub(super) fn kinds(insts: &[Inst], registers: u32) -> Vec<Kind> {
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
            other => (defined(other), false, Vec::new()),
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

/// Registers an operation other than `Float`, `Ld`, `Mov` and `Selp` writes.
fn defined(op: &Op) -> Vec<u32> {
    use chevron_ptx::interp::inst::Collective;
    match op {
        Op::IntBin { d, .. }
        | Op::IntTer { d, .. }
        | Op::IntUn { d, .. }
        | Op::PredLogic { d, .. }
        | Op::Cvt { d, .. }
        | Op::Cvta { d, .. }
        | Op::Atom { d, .. } => vec![*d],
        Op::Setp { p, q, .. } => vec![*p, *q],
        Op::Warp {
            c: Collective::Shfl { d, p, .. },
            ..
        } => vec![*d, *p],
        // Outside the compiled subset, or writes no register.
        _ => Vec::new(),
    }
}

/// The registers of the function being built.
pub(super) struct Registers {
    vars: Vec<Variable>,
    kinds: Vec<Kind>,
}

impl Registers {
    /// Declares variables for registers of the given kinds; those in `remat` become
    /// [`Kind::Remat`].
    pub(super) fn declare(
        b: &mut FunctionBuilder<'_>,
        mut kinds: Vec<Kind>,
        remat: impl IntoIterator<Item = u32>,
    ) -> Registers {
        for r in remat {
            kinds[r as usize] = Kind::Remat;
        }
        let vars = kinds.iter().map(|k| b.declare_var(k.ty())).collect();
        Registers { vars, kinds }
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
                let bits = b.ins().bitcast(types::I32, MemFlags::new(), v);
                b.ins().uextend(types::I64, bits)
            }
        }
    }

    /// The low 32 bits of register `r` as an `f32`.
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
                let bits = b.ins().bitcast(types::I32, MemFlags::new(), f);
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
        let v = b.ins().load(ty, MemFlags::trusted(), base, (r * 8) as i32);
        b.def_var(self.vars[r as usize], v);
    }

    /// Stores register `r` to its slot (an `f32` register to the low 4 bytes: the upper 4 are
    /// never written by anything, so they stay the zero they started as).
    pub(super) fn store(&self, b: &mut FunctionBuilder<'_>, r: u32, base: Value) {
        if self.kind(r) == Kind::Remat {
            return;
        }
        let v = b.use_var(self.vars[r as usize]);
        b.ins().store(MemFlags::trusted(), v, base, (r * 8) as i32);
    }
}

/// The low 32 bits of the integer `v` as an `f32`.
pub(super) fn f32_of(b: &mut FunctionBuilder<'_>, v: Value) -> Value {
    let low = b.ins().ireduce(types::I32, v);
    b.ins().bitcast(types::F32, MemFlags::new(), low)
}
