//! Global and shared accesses other than one 32- or 64-bit element per thread: vectors of
//! two or four elements (`ld.v2.f32`, `ld.v4.u32`, `st.v2.f64`: `float2`, `float4`, `int4`
//! …, up to 16 bytes), 8- and 16-bit elements (`uchar` pixels, `short` data) and loads that
//! sign-extend (`ld.s32`, `ld.s16`, `ld.s8`: the interpreter holds their values extended to 64
//! bits, so they are 64-bit registers here). Each thread's access is one host access of its
//! whole size, checked as the scalar code checks it (bounds and alignment to the size rounded
//! up to a power of two), so a pair published with one `st.v2` is never seen half written; a
//! group of four threads reading consecutive `float4`s loads four rows and transposes them.

use chevron_ptx::lowered::{AddrBase, Op, Space, Src, SINK};
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::plan::Width;
use super::shapes::Shape;
use super::{mem, Lane, VectorEmitter};
use crate::codegen::whole;

/// Whether `op` is an access the vector code makes directly (one element of 32 or 64 bits,
/// not sign-extending), the form every other part of it knows.
pub(super) fn plain(op: &Op) -> bool {
    match op {
        Op::Ld {
            bits, signed, ds, ..
        } => ds.len() == 1 && (*bits == 64 || (*bits == 32 && !*signed)),
        Op::St { bits, srcs, .. } => srcs.len() == 1 && matches!(bits, 32 | 64),
        _ => true,
    }
}

/// The bytes one thread's access of `op` (a load or a store) moves.
pub(super) fn access_bytes(op: &Op) -> u64 {
    match op {
        Op::Ld { bits, ds, .. } => u64::from(*bits / 8) * ds.len() as u64,
        Op::St { bits, srcs, .. } => u64::from(*bits / 8) * srcs.len() as u64,
        _ => 0,
    }
}

/// The width of what a load of this module's forms writes (`Some(None)` for a store), if
/// `op` is one.
pub(super) fn width(op: &Op) -> Option<Option<Width>> {
    let (space, addr, bits, count) = match op {
        Op::Ld {
            space,
            addr,
            bits,
            ds,
            ..
        } if !ds.contains(&SINK) => (space, addr, *bits, ds.len()),
        Op::St {
            space,
            addr,
            bits,
            srcs,
        } => (space, addr, *bits, srcs.len()),
        _ => return None,
    };
    let fits = matches!(space, Space::Global | Space::Shared)
        && matches!(addr.base, AddrBase::Reg(_) | AddrBase::Abs)
        && match count {
            1 => matches!(bits, 8 | 16 | 32 | 64),
            2 | 4 => access_bytes(op) <= 16,
            _ => false,
        };
    if !fits || plain(op) {
        return None;
    }
    Some(match op {
        Op::Ld { signed: true, .. } if bits < 64 => Some(Width::W64),
        Op::Ld { .. } if bits == 64 => Some(Width::W64),
        Op::Ld { .. } => Some(Width::W32),
        _ => None,
    })
}

/// What an access of this module moves.
enum Target<'a> {
    Load(&'a [u32], bool),
    Store(&'a [Src]),
}

impl VectorEmitter<'_, '_, '_> {
    /// Emits the access at `pc` (one [`width`] admits).
    pub(super) fn elements(&mut self, pc: usize) {
        let op = self.t.code.insts[pc].op.clone();
        let (space, addr, bits, target) = match &op {
            Op::Ld {
                space,
                addr,
                bits,
                ds,
                signed,
            } => (*space, *addr, *bits, Target::Load(ds, *signed)),
            Op::St {
                space,
                addr,
                bits,
                srcs,
            } => (*space, *addr, *bits, Target::Store(srcs)),
            _ => unreachable!("a load or a store"),
        };
        let bytes = access_bytes(&op);
        let shift = bytes.next_power_of_two().trailing_zeros();
        let varying =
            matches!(addr.base, AddrBase::Reg(r) if self.shape(Src::Reg(r)) == Shape::Varying);
        let w = self.group_width();
        let hosts: Vec<Value> = if varying {
            self.lane_hosts_of(pc, space, &addr, shift, None)
        } else {
            let (host, stride) = self.checked_host(pc, space, &addr, shift);
            if let Target::Load(ds, false) = target {
                if bits == 32 && ds.len() == 4 && stride == 16 && self.def_shape() == Shape::Varying
                {
                    return self.load_rows(host, ds);
                }
            }
            (0..w)
                .map(|i| self.b.ins().iadd_imm_u(host, i64::from(i) * stride))
                .collect()
        };
        match target {
            Target::Load(ds, signed) => self.load_elements(&hosts, bits, ds, signed),
            Target::Store(srcs) => {
                // Threads storing to one address one after another: the last one's stays.
                for (lane, &host) in hosts.iter().enumerate() {
                    let v = self.packed(srcs, bits, lane as u8);
                    self.b.ins().store(mem(), v, host, 0);
                }
            }
        }
    }

    /// Each thread's elements, one host load of the whole access per thread (one for all
    /// when the address and the result are the same in every thread).
    fn load_elements(&mut self, hosts: &[Value], bits: u8, ds: &[u32], signed: bool) {
        let uniform = self.def_shape() != Shape::Varying;
        let threads = if uniform { 1 } else { hosts.len() };
        let ty = whole::whole_type(bits, ds.len());
        // Per thread, per element: its value as the register holds it.
        let values: Vec<Vec<Value>> = (hosts.iter().take(threads))
            .map(|&host| {
                let v = self.b.ins().load(ty, mem(), host, 0);
                (whole::parts(self.b, v, bits, ds.len()).into_iter())
                    .map(|part| self.extended(part, bits, signed))
                    .collect()
            })
            .collect();
        for (k, &d) in ds.iter().enumerate() {
            let lanes: Vec<Value> = values.iter().map(|t| t[k]).collect();
            if uniform {
                self.set(d, Lane::Zero, lanes[0]);
            } else if self.width(d) == Width::W64 {
                self.set_lanes(d, &lanes);
            } else {
                for (j, four) in lanes.chunks(4).enumerate() {
                    let v = self.gather(four);
                    self.set(d, Lane::Vector(j as u8), v);
                }
            }
        }
    }

    /// An element `part` (in its own type) as its register holds it: 32 bits (zero-extended),
    /// or 64 (a 64-bit element, or a signed one sign-extended).
    fn extended(&mut self, part: Value, bits: u8, signed: bool) -> Value {
        match (signed && bits < 64, bits) {
            (true, _) => self.b.ins().sextend(types::I64, part),
            (false, 8 | 16) => self.b.ins().uextend(types::I32, part),
            _ => part,
        }
    }

    /// Thread `lane`'s elements `srcs` packed into one value of the access's size.
    fn packed(&mut self, srcs: &[Src], bits: u8, lane: u8) -> Value {
        let parts: Vec<Value> = (srcs.iter())
            .map(|&s| {
                if bits == 64 {
                    self.lane64(s, lane)
                } else {
                    self.lane32(s, lane)
                }
            })
            .collect();
        whole::packed(self.b, &parts, bits)
    }

    /// Four consecutive `v4.b32` records per four threads: each four rows loaded as vectors
    /// and transposed into the four registers' vectors.
    fn load_rows(&mut self, host: Value, ds: &[u32]) {
        for j in 0..self.p {
            let rows: Vec<Value> = (0..4)
                .map(|i| {
                    let at = 16 * (4 * i32::from(j) + i);
                    self.b.ins().load(types::I32X4, mem(), host, at)
                })
                .collect();
            let columns = self.transpose([rows[0], rows[1], rows[2], rows[3]]);
            for (k, &d) in ds.iter().enumerate() {
                self.set(d, Lane::Vector(j), columns[k]);
            }
        }
    }
}
