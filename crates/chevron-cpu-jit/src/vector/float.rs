//! The vector code's f32 helpers: constants, `min`/`max` with PTX's NaN rules, `cvt.sat`, and
//! `setp`'s comparisons as x86 has them.

use chevron_ptx::ir::Compare;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::ops::lanes;
use super::VectorEmitter;

impl VectorEmitter<'_, '_, '_> {
    /// `v` in every lane of an `f32x4`, or an `f32`.
    pub(super) fn f32_splat(&mut self, vector: bool, v: f32) -> Value {
        let c = self.b.ins().f32const(v);
        if vector {
            self.b.ins().splat(types::F32X4, c)
        } else {
            c
        }
    }

    /// `cvt.sat.f32.f32` of `f` (`f32` or `f32x4`), as bits: clamped to [0, 1], −0 to +0 and
    /// a NaN to 0, as the interpreter's conversion gives them.
    pub(super) fn saturate(&mut self, f: Value) -> Value {
        let vector = self.b.func.dfg.value_type(f) == types::F32X4;
        let (zero, one) = (self.f32_splat(vector, 0.0), self.f32_splat(vector, 1.0));
        let low = self.b.ins().fmin(f, one);
        let clamped = self.b.ins().fmax(low, zero);
        let clamped = self.b.ins().fadd(clamped, zero);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
        let r = self.where_nan(nan, zero, clamped);
        let ity = if vector { types::I32X4 } else { types::I32 };
        self.b.ins().bitcast(ity, lanes(), r)
    }

    /// PTX's `min.f32`/`max.f32` of `x` and `y` (`f32` or `f32x4`): the number when one
    /// operand is NaN, a NaN (made canonical by the caller) when both are, −0 below +0 — the
    /// host's NaN-propagating minimum or maximum with the NaN cases replaced.
    pub(super) fn min_max(&mut self, max: bool, x: Value, y: Value) -> Value {
        let r = if max {
            self.b.ins().fmax(x, y)
        } else {
            self.b.ins().fmin(x, y)
        };
        let x_nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let r = self.where_nan(x_nan, y, r);
        let y_nan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        self.where_nan(y_nan, x, r)
    }

    /// `a` where the unordered compare `mask` holds (a NaN), else `b` (`f32`s, or lane by lane
    /// `f32x4`s).
    fn where_nan(&mut self, mask: Value, a: Value, b: Value) -> Value {
        if self.b.func.dfg.value_type(a) == types::F32X4 {
            let mask = self.b.ins().bitcast(types::F32X4, lanes(), mask);
            self.b.ins().bitselect(mask, a, b)
        } else {
            self.b.ins().select(mask, a, b)
        }
    }
}

/// The float comparison of `setp.cmp.f32` (the plain forms are false when an operand is NaN,
/// the `u` forms true) as a compare x86 has, whether to negate it, and a second compare to
/// combine with it (`true`: and, `false`: or).
pub(super) fn float_cc(cmp: Compare) -> (FloatCC, bool, Option<(FloatCC, bool)>) {
    use FloatCC as F;
    match cmp {
        Compare::Eq => (F::Equal, false, None),
        Compare::Ne => (F::NotEqual, false, Some((F::Ordered, true))),
        Compare::Lt | Compare::Lo => (F::LessThan, false, None),
        Compare::Le | Compare::Ls => (F::LessThanOrEqual, false, None),
        Compare::Gt | Compare::Hi => (F::GreaterThan, false, None),
        Compare::Ge | Compare::Hs => (F::GreaterThanOrEqual, false, None),
        Compare::Equ => (F::Equal, false, Some((F::Unordered, false))),
        Compare::Neu => (F::NotEqual, false, None),
        Compare::Ltu => (F::GreaterThanOrEqual, true, None),
        Compare::Leu => (F::GreaterThan, true, None),
        Compare::Gtu => (F::LessThanOrEqual, true, None),
        Compare::Geu => (F::LessThan, true, None),
        Compare::Num => (F::Ordered, false, None),
        Compare::Nan => (F::Unordered, false, None),
    }
}
