//! `mov` between a register and a vector of its parts: `mov.b64 %rd, {%r1, %r2}` (packing),
//! `mov.b64 {%r1, %r2}, %rd` (unpacking), and their 16- and 8-bit forms, thread by thread
//! with the interpreter's masks and shifts. nvcc writes them around every double whose halves
//! it inspects (`__double2hiint`, the exponent tests of `exp`, `log` and `pow`), so a kernel
//! of double arithmetic kept them one thread at a time.

use chevron_ptx::lowered::{Op, Src};
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{Lane, VectorEmitter};
use crate::codegen::bit_mask;

/// The width of what a packing or unpacking `op` writes, if it is one.
pub(super) fn width(op: &Op) -> Option<Option<Width>> {
    match op {
        Op::Pack { parts, part, .. } => match u32::from(*part) * parts.len() as u32 {
            64 => Some(Some(Width::W64)),
            bits if bits <= 32 => Some(Some(Width::W32)),
            _ => None,
        },
        Op::Unpack { part, .. } if *part <= 32 => Some(Some(Width::W32)),
        _ => None,
    }
}

impl VectorEmitter<'_, '_, '_> {
    /// Emits the packing or unpacking at `pc`.
    pub(super) fn packing(&mut self, pc: usize) {
        let op = self.t.code.insts[pc].op.clone();
        let threads = if self.def_shape() == Shape::Varying {
            self.group_width()
        } else {
            1
        };
        match op {
            Op::Pack { d, parts, part } => {
                let values: Vec<Value> = (0..threads)
                    .map(|lane| self.packed_parts(&parts, part, lane))
                    .collect();
                self.write_lanes(d, values);
            }
            Op::Unpack { ds, a, part } => {
                let mask = bit_mask(u32::from(part)) as i64;
                let sources: Vec<Value> = (0..threads).map(|lane| self.lane64(a, lane)).collect();
                for (k, &d) in ds.iter().enumerate() {
                    let shift = k as i64 * i64::from(part);
                    let values: Vec<Value> = (sources.iter())
                        .map(|&v| {
                            let v = if shift >= 64 {
                                self.b.ins().iconst(types::I64, 0)
                            } else {
                                self.b.ins().ushr_imm_u(v, shift)
                            };
                            let v = self.b.ins().band_imm_u(v, mask);
                            self.b.ins().ireduce(types::I32, v)
                        })
                        .collect();
                    self.write_lanes(d, values);
                }
            }
            _ => unreachable!("a packing or unpacking"),
        }
    }

    /// Thread `lane`'s parts, each masked to `part` bits, at their places in 64 bits.
    fn packed_parts(&mut self, parts: &[Src], part: u8, lane: u8) -> Value {
        let mask = bit_mask(u32::from(part)) as i64;
        let mut v = self.b.ins().iconst(types::I64, 0);
        for (k, &p) in parts.iter().enumerate() {
            let shift = k as i64 * i64::from(part);
            if shift >= 64 {
                break;
            }
            let x = self.lane64(p, lane);
            let x = self.b.ins().band_imm_u(x, mask);
            let x = self.b.ins().ishl_imm_u(x, shift);
            v = self.b.ins().bor(v, x);
        }
        v
    }

    /// Writes register `d` from one 64-bit (or, for a 32-bit register, 32-bit or wider)
    /// value per thread, or one for all when the instruction's result is the same in every
    /// thread.
    fn write_lanes(&mut self, d: u32, values: Vec<Value>) {
        let wide = self.width(d) == Width::W64;
        let values: Vec<Value> = (values.into_iter())
            .map(|v| {
                let is_wide = self.b.func.dfg.value_type(v) == types::I64;
                if !wide && is_wide {
                    self.b.ins().ireduce(types::I32, v)
                } else {
                    v
                }
            })
            .collect();
        if values.len() == 1 {
            return self.set(d, Lane::Zero, values[0]);
        }
        if wide {
            return self.set_lanes(d, &values);
        }
        for (j, four) in values.chunks(4).enumerate() {
            let v = self.gather(four);
            self.set(d, Lane::Vector(j as u8), v);
        }
    }
}
