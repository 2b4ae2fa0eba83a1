//! Integer and float arithmetic emitted inline, with the interpreter's register conventions
//! (results masked to their type's width, operands read sign-extended or masked).

use chevron_ptx::ir::{Compare, ScalarType as T};
use chevron_ptx::lowered::{FloatOp, IntBin};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::Emitter;

/// The low `bits` bits set.
pub(crate) fn bit_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v` masked to the low `bits` bits.
pub(super) fn mask_bits(b: &mut FunctionBuilder<'_>, v: Value, bits: u32) -> Value {
    if bits >= 64 {
        v
    } else if bits == 32 {
        // A 32-bit move, which zero-extends; folds into the 32-bit operation before it.
        let low = b.ins().ireduce(types::I32, v);
        b.ins().uextend(types::I64, low)
    } else {
        b.ins().band_imm_u(v, ((1u64 << bits) - 1) as i64)
    }
}

/// Whether `setp.cmp.t` on integers compares signed: a signed type, unless the form is one of
/// the unsigned ones (`lo`, `ls`, `hi`, `hs`).
fn compares_signed(cmp: Compare, t: T) -> bool {
    t.is_signed() && !matches!(cmp, Compare::Lo | Compare::Ls | Compare::Hi | Compare::Hs)
}

/// The condition of `setp.cmp.t` on integers, signed or unsigned as [`compares_signed`] says;
/// `None` for `num` and `nan`, which do not compare (always true, always false).
pub(crate) fn int_cc(cmp: Compare, t: T) -> Option<IntCC> {
    let pick = |s: IntCC, u: IntCC| if compares_signed(cmp, t) { s } else { u };
    Some(match cmp {
        Compare::Eq | Compare::Equ => IntCC::Equal,
        Compare::Ne | Compare::Neu => IntCC::NotEqual,
        Compare::Lt | Compare::Lo | Compare::Ltu => {
            pick(IntCC::SignedLessThan, IntCC::UnsignedLessThan)
        }
        Compare::Le | Compare::Ls | Compare::Leu => {
            pick(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual)
        }
        Compare::Gt | Compare::Hi | Compare::Gtu => {
            pick(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan)
        }
        Compare::Ge | Compare::Hs | Compare::Geu => pick(
            IntCC::SignedGreaterThanOrEqual,
            IntCC::UnsignedGreaterThanOrEqual,
        ),
        Compare::Num | Compare::Nan => return None,
    })
}

/// Bits of an integer type's value.
pub(super) fn width(t: T) -> u32 {
    (t.size() * 8).min(64)
}

/// `v` as the interpreter reads an operand of type `t`: sign-extended or masked to 64 bits.
pub(super) fn typed_value(b: &mut FunctionBuilder<'_>, t: T, v: Value) -> Value {
    let w = width(t);
    if w >= 64 {
        v
    } else if t.is_signed() {
        let up = b.ins().ishl_imm_u(v, i64::from(64 - w));
        b.ins().sshr_imm_u(up, i64::from(64 - w))
    } else {
        mask_bits(b, v, w)
    }
}

impl Emitter<'_, '_, '_> {
    pub(super) fn int_bin(&mut self, pc: usize, k: IntBin, t: T, x: Value, y: Value) -> Value {
        let w = width(t);
        // Wrapping operations: the low `w` bits of the 64-bit result.
        let wrapping = match k {
            IntBin::Add => Some(self.b.ins().iadd(x, y)),
            IntBin::Sub => Some(self.b.ins().isub(x, y)),
            IntBin::MulLo => Some(self.b.ins().imul(x, y)),
            IntBin::And => Some(self.b.ins().band(x, y)),
            IntBin::Or => Some(self.b.ins().bor(x, y)),
            IntBin::Xor => Some(self.b.ins().bxor(x, y)),
            _ => None,
        };
        if let Some(v) = wrapping {
            return mask_bits(self.b, v, w);
        }
        match k {
            IntBin::MulWide => {
                let (xv, yv) = (typed_value(self.b, t, x), typed_value(self.b, t, y));
                let v = self.b.ins().imul(xv, yv);
                mask_bits(self.b, v, 2 * w)
            }
            IntBin::Shl => {
                let amount = self.b.ins().band_imm_u(y, 0xffff_ffff);
                let shifted = self.b.ins().ishl(x, amount);
                let shifted = mask_bits(self.b, shifted, w);
                let big = self.b.ins().icmp_imm_u(
                    IntCC::UnsignedGreaterThanOrEqual,
                    amount,
                    i64::from(w),
                );
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.ins().select(big, zero, shifted)
            }
            IntBin::Shr if t.is_signed() => {
                let amount = self.b.ins().band_imm_u(y, 0xffff_ffff);
                let limit = self.b.ins().iconst(types::I64, i64::from(w - 1));
                let amount = self.b.ins().umin(amount, limit);
                let v = typed_value(self.b, t, x);
                let v = self.b.ins().sshr(v, amount);
                mask_bits(self.b, v, w)
            }
            IntBin::Shr => {
                let amount = self.b.ins().band_imm_u(y, 0xffff_ffff);
                let v = mask_bits(self.b, x, w);
                let shifted = self.b.ins().ushr(v, amount);
                let big = self.b.ins().icmp_imm_u(
                    IntCC::UnsignedGreaterThanOrEqual,
                    amount,
                    i64::from(w),
                );
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.ins().select(big, zero, shifted)
            }
            _ => {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.call_evaluate(pc, x, y, zero)
            }
        }
    }

    /// 1 or 0: `cmp` of two integer operands of type `t`, as the interpreter compares them.
    pub(super) fn int_compare(&mut self, cmp: Compare, t: T, x: Value, y: Value) -> Value {
        let (xv, yv) = if compares_signed(cmp, t) {
            (typed_value(self.b, t, x), typed_value(self.b, t, y))
        } else {
            let w = width(t);
            (mask_bits(self.b, x, w), mask_bits(self.b, y, w))
        };
        let cc = match (cmp, int_cc(cmp, t)) {
            (_, Some(cc)) => cc,
            (Compare::Num, None) => return self.b.ins().iconst(types::I64, 1),
            _ => return self.b.ins().iconst(types::I64, 0),
        };
        let r = self.b.ins().icmp(cc, xv, yv);
        self.b.ins().uextend(types::I64, r)
    }

    /// f32 `add`/`sub`/`mul`/`fma` (`f32` operands, `c` for `fma` only) in round-to-nearest,
    /// a NaN as the host makes it ([`registers::canonical_nan`] makes it the GPU's).
    pub(super) fn float_plain(&mut self, op: FloatOp, a: Value, b: Value, c: Value) -> Value {
        match op {
            FloatOp::Add => self.b.ins().fadd(a, b),
            FloatOp::Sub => self.b.ins().fsub(a, b),
            FloatOp::Mul => self.b.ins().fmul(a, b),
            _ => self.b.ins().fma(a, b, c),
        }
    }
}
