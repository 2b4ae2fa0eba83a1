//! What a group's threads do apart in the vector function: shared and global loads and
//! stores at unrelated addresses (a gather or a scatter, each thread's address checked),
//! atomics one thread after another, and shifts by an amount held in a register (the same in
//! the group's threads).

use std::mem::offset_of;

use chevron_ptx::lowered::{Addr, AddrBase, IntBin, Op, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

use super::access::Access;
use super::{mem, Lane, VectorEmitter};
use crate::context::{BlockContext, SITE_WORDS};

impl VectorEmitter<'_, '_, '_> {
    /// A shared or global load into a register or a store of an operand, `1 << shift` bytes
    /// per thread, at each thread's own address: the four are checked (bounds and alignment,
    /// the scalar code's rotate and compare; a global address against the allocation its
    /// access site used last) before any is touched, and a group with one address that fails
    /// goes on in the scalar code at `pc`, which resolves, faults (or clamps) as for any
    /// thread. Stores go in thread order, so of two threads writing one word the later one's
    /// value stays.
    pub(super) fn lanes_apart(
        &mut self,
        pc: usize,
        space: Space,
        addr: &Addr,
        shift: u32,
        target: Access,
    ) {
        let hosts = self.lane_hosts(pc, space, addr, shift);
        match target {
            Access::Load(d) if shift == 3 => {
                let v: Vec<Value> = (hosts.iter())
                    .map(|&host| self.b.ins().load(types::I64, mem(), host, 0))
                    .collect();
                self.set_lanes(d, &v);
            }
            Access::Load(d) => {
                let lanes: Vec<Value> = hosts
                    .iter()
                    .map(|&host| self.b.ins().load(types::I32, mem(), host, 0))
                    .collect();
                self.set_vectors(d, &lanes);
            }
            Access::Store(src) => {
                for (lane, &host) in hosts.iter().enumerate() {
                    let v = if shift == 3 {
                        self.lane64(src, lane as u8)
                    } else {
                        self.lane32(src, lane as u8)
                    };
                    self.b.ins().store(mem(), v, host, 0);
                }
            }
        }
    }

    /// An integer atomic of the inline set, each thread's in turn, as the scalar code does it:
    /// on shared memory a plain load, operation and store (the block's shared memory is its
    /// worker's alone), on global memory one locked instruction; the four addresses checked
    /// first as [`lanes_apart`](Self::lanes_apart) checks them, each thread's old value into
    /// `d`.
    pub(super) fn atomic_lanes(&mut self, pc: usize, atom: &Op) {
        let Op::Atom {
            space,
            op,
            ty,
            d,
            addr,
            b,
            c,
        } = atom
        else {
            unreachable!("an atomic");
        };
        let wide = ty.size() == 8;
        let shift = if wide { 3 } else { 2 };
        let hosts = self.lane_hosts(pc, *space, addr, shift);
        let olds: Vec<Value> = (0..self.group_width())
            .map(|lane| {
                let (x, y, int_ty) = if wide {
                    (self.lane64(*b, lane), self.lane64(*c, lane), types::I64)
                } else {
                    (self.lane32(*b, lane), self.lane32(*c, lane), types::I32)
                };
                let host = hosts[usize::from(lane)];
                if *space != Space::Shared {
                    return crate::codegen::locked_atomic(self.b, *op, ty.is_signed(), host, x, y);
                }
                let old = self.b.ins().load(int_ty, mem(), host, 0);
                let new = crate::codegen::atomic_result(self.b, *op, ty.is_signed(), old, x, y);
                self.b.ins().store(mem(), new, host, 0);
                old
            })
            .collect();
        if wide {
            self.set_lanes(*d, &olds);
        } else {
            self.set_vectors(*d, &olds);
        }
    }

    /// Writes varying 32-bit register `d` from one `i32` per thread of the group.
    fn set_vectors(&mut self, d: u32, lanes: &[Value]) {
        for (j, four) in lanes.chunks(4).enumerate() {
            let v = self.gather(four);
            self.set(d, Lane::Vector(j as u8), v);
        }
    }

    /// The host addresses of the group's threads' accesses of `1 << shift` bytes at `addr`,
    /// all checked (else the group goes on in the scalar code at `pc`).
    fn lane_hosts(&mut self, pc: usize, space: Space, addr: &Addr, shift: u32) -> Vec<Value> {
        self.lane_hosts_of(pc, space, addr, shift, None)
    }

    /// [`lane_hosts`](Self::lane_hosts); with `active` (a flag per thread, and a host address
    /// of the function's own), only the active threads' addresses are checked and the others
    /// get that address.
    pub(super) fn lane_hosts_of(
        &mut self,
        pc: usize,
        space: Space,
        addr: &Addr,
        shift: u32,
        active: Option<(&[Value], Value)>,
    ) -> Vec<Value> {
        // (start, limit, host minus start) of the memory: the block's shared memory, or the
        // allocation of the site's cache entry.
        let (start, limit, delta) = if space == Space::Shared {
            let limits = offset_of!(BlockContext, shared_limits) + 8 * shift as usize;
            let zero = self.b.ins().iconst(types::I64, 0);
            (
                zero,
                self.load_fixed(types::I64, limits),
                self.load_fixed(types::I64, offset_of!(BlockContext, shared)),
            )
        } else {
            let site = self.t.sites[&pc];
            let sites = self.load_fixed(types::I64, offset_of!(BlockContext, sites));
            let slot = (self.b.ins()).iadd_imm_u(sites, i64::from(site) * 8 * SITE_WORDS as i64);
            let word = |e: &mut Self, i: i32| {
                e.b.ins()
                    .load(types::I64, MemFlagsData::trusted(), slot, 8 * i)
            };
            (word(self, 0), word(self, 1), word(self, 2))
        };
        let mut ok: Option<Value> = None;
        let mut hosts = Vec::new();
        for lane in 0..self.group_width() {
            let a = match addr.base {
                AddrBase::Reg(r) => self.lane64(Src::Reg(r), lane),
                _ => self.b.ins().iconst(types::I64, 0),
            };
            let mut a = self.b.ins().iadd_imm_u(a, addr.offset);
            if space == Space::Shared {
                // Shared addresses are 32 bits, as in the scalar code.
                a = self.b.ins().band_imm_u(a, 0xffff_ffff);
            }
            let off = self.b.ins().isub(a, start);
            let rotated = self.b.ins().rotr_imm_u(off, i64::from(shift));
            let mut fits = self.b.ins().icmp(IntCC::UnsignedLessThan, rotated, limit);
            let mut host = self.b.ins().iadd(a, delta);
            if let Some((flags, idle)) = active {
                let on = flags[usize::from(lane)];
                let off = self.b.ins().bxor_imm_u(on, 1);
                fits = self.b.ins().bor(fits, off);
                host = self.b.ins().select(on, host, idle);
            }
            ok = Some(match ok {
                Some(o) => self.b.ins().band(o, fits),
                None => fits,
            });
            hosts.push(host);
        }
        let go = self.b.create_block();
        let parted = self.exit_block(pc);
        let ok = ok.expect("four threads");
        self.b.ins().brif(ok, go, &[], parted, &[]);
        self.b.switch_to_block(go);
        hosts
    }

    /// `x` (an `i32`, an `i32x4` or an `i64`, as `lane` and `bits` say) shifted by `n` (an
    /// `i32`) as PTX shifts: an amount of at least `bits` gives 0, or the sign for `shr.s`.
    pub(super) fn shift_by(
        &mut self,
        k: IntBin,
        signed: bool,
        x: Value,
        n: Value,
        bits: u64,
        lane: Lane,
    ) -> Value {
        let top = self.b.ins().iconst(types::I32, (bits - 1) as i64);
        let clamped = self.b.ins().umin(n, top);
        let shifted = match (k, signed) {
            (IntBin::Shl, _) => self.b.ins().ishl(x, clamped),
            (_, true) => return self.b.ins().sshr(x, clamped),
            _ => self.b.ins().ushr(x, clamped),
        };
        let over = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, n, (bits - 1) as i64);
        let zero = match (bits, lane) {
            (64, _) => self.b.ins().iconst(types::I64, 0),
            (_, Lane::Vector(_)) => self.vconst([0; 4]),
            _ => self.b.ins().iconst(types::I32, 0),
        };
        self.b.ins().select(over, zero, shifted)
    }
}
