//! Integer instructions of cooperative groups' code four threads at a time: `bfi` at a
//! constant position and length (the grid-synchronisation workspace's address is built with
//! one) and `neg`, as the interpreter's `numeric` computes them.

use chevron_ptx::ir::ScalarType as T;
use chevron_ptx::lowered::Src;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::{Lane, VectorEmitter};

impl VectorEmitter<'_, '_, '_> {
    /// `bfi.b{bits} d, a, b, c, e` with `c` and `e` immediates (the plan admits no other): `b`
    /// with the low `e` bits of `a` inserted at bit `c`, in `lane`'s form (64-bit values
    /// never [`Lane::Vector`]).
    pub(super) fn bfi(&mut self, bits: u8, [a, b, c, e]: [Src; 4], lane: Lane) -> Value {
        let imm = |s: Src| match s {
            Src::Imm(v) => (v & 0xff) as u32,
            _ => 0,
        };
        let (pos, len, w) = (imm(c), imm(e), u32::from(bits));
        let wide = bits == 64;
        let get = |em: &mut Self, s: Src| {
            if wide {
                em.get64(s, lane)
            } else {
                em.get32(s, lane)
            }
        };
        let y = get(self, b);
        if pos >= w {
            return y;
        }
        let n = len.min(w - pos);
        let field = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let x = get(self, a);
        let konst = |em: &mut Self, v: u64| match (wide, lane) {
            (true, _) => em.b.ins().iconst(types::I64, v as i64),
            (false, Lane::Vector(_)) => em.vconst([v as u32 as i32; 4]),
            (false, _) => em.b.ins().iconst(types::I32, i64::from(v as u32 as i32)),
        };
        let keep = konst(self, !(field << pos));
        let kept = self.b.ins().band(y, keep);
        let low = konst(self, field);
        let x = self.b.ins().band(x, low);
        let ty = if wide { types::I64 } else { types::I32 };
        let shift = self.b.ins().iconst(ty, i64::from(pos));
        let x = self.b.ins().ishl(x, shift);
        self.b.ins().bor(kept, x)
    }

    /// `neg` of type `t` (32 or 64 bits) in `lane`'s form: the value subtracted from zero,
    /// wrapping.
    pub(super) fn neg(&mut self, t: T, a: Src, lane: Lane) -> Value {
        if t.size() == 8 {
            let x = self.get64(a, lane);
            let zero = self.b.ins().iconst(types::I64, 0);
            self.b.ins().isub(zero, x)
        } else {
            let x = self.get32(a, lane);
            let zero = self.konst(lane, 0);
            self.b.ins().isub(zero, x)
        }
    }

    /// `not.b32`/`not.b64` of `a` (`i32x4`, or an `i64` lane): every bit flipped, as the
    /// interpreter's `mask(t, !x)` (a 32-bit register's lanes hold its 32 bits).
    pub(super) fn not(&mut self, t: T, a: Src, lane: Lane) -> Value {
        let x = if t.size() == 8 {
            self.get64(a, lane)
        } else {
            self.get32(a, lane)
        };
        self.b.ins().bnot(x)
    }
}
