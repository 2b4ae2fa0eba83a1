//! Global and shared accesses of one 32- or 64-bit element per thread in the vector code:
//! each group's addresses checked once, at the first and the last thread's element
//! ([`VectorEmitter::checked_host`]), against shared memory's size or the access site's cached
//! allocation, then one vector load or store (consecutive elements), one element for all
//! (uniform), a strided gather or scatter, or four unrelated addresses (`scatter.rs`).

use std::mem::offset_of;

use chevron_ptx::lowered::{AddrBase, Space, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, InstBuilder, MemFlagsData, Value};

use super::shapes::Shape;
use super::{mem, Lane, VectorEmitter};
use crate::context::{BlockContext, SITE_WORDS};

/// What a global or shared access does.
#[derive(Clone, Copy)]
pub(super) enum Access {
    /// Loads into the register.
    Load(u32),
    /// Stores the operand.
    Store(Src),
}

impl VectorEmitter<'_, '_, '_> {
    /// The host address of a global or shared access of `1 << shift` bytes per thread, and
    /// the distance in bytes from one thread's element to the next (0: all four access the
    /// same one; the element's size: consecutive elements; a larger multiple of it: a strided
    /// gather or scatter, as a thread reading or writing every fourth element): checked at the
    /// first and the last thread's element. Alignment holds for all four when it holds for
    /// the first, and an allocation (or the shared memory) is one range, so the four elements
    /// lie inside it when the first and the last do. A check that fails sends the group to
    /// the scalar code at `pc`, which faults (or, unchecked, clamps) exactly as for any thread.
    pub(super) fn checked_host(
        &mut self,
        pc: usize,
        space: Space,
        addr: &chevron_ptx::lowered::Addr,
        shift: u32,
    ) -> (Value, i64) {
        if let Some(hoisted) = self.hoisted_host(pc, addr) {
            return hoisted;
        }
        let earlier = self.checked.iter().find(|c| {
            c.space == space
                && c.addr.base == addr.base
                && c.addr.offset == addr.offset
                && shift <= c.shift
        });
        if let Some(earlier) = earlier {
            // Inside accesses checked before (same elements, no wider, so no stronger
            // alignment; the same register, so the same stride): their host address.
            return (earlier.host, earlier.stride);
        }
        let (first, shape) = match addr.base {
            AddrBase::Reg(r) => (self.lane64(Src::Reg(r), 0), self.shape(Src::Reg(r))),
            _ => (self.b.ins().iconst(types::I64, 0), Shape::Uniform),
        };
        let first = self.b.ins().iadd_imm_u(first, addr.offset);
        // The plan admits uniform addresses and strides that are multiples of the element.
        let stride = match shape {
            Shape::Affine(k) => k,
            _ => 0,
        };
        let last = if stride != 0 {
            let span = i64::from(self.group_width() - 1) * stride;
            self.b.ins().iadd_imm_u(first, span)
        } else {
            first
        };
        let host = match space {
            Space::Shared => self.shared_range(pc, first, last, shift),
            // The site entry's limit for consecutive elements is for four of them.
            _ => self.global_range(
                pc,
                (first, last, stride == 1 << shift && self.p == 1),
                shift,
            ),
        };
        if self.t.code.insts[pc].guard.is_none() {
            // Checked on every path from here to the end of the instruction's straight line.
            self.checked.push(super::Checked {
                space,
                addr: *addr,
                shift,
                stride,
                host,
            });
        }
        (host, stride)
    }

    /// A load of `bits` (32 or 64) into `d`, or a store of `value`, through `checked_host`.
    pub(super) fn access(
        &mut self,
        pc: usize,
        space: Space,
        addr: &chevron_ptx::lowered::Addr,
        bits: u8,
        target: Access,
    ) {
        let shift = if bits == 64 { 3 } else { 2 };
        // Four words of each thread's own record, with three more accesses (`records.rs`).
        if self.record_access(pc, target) {
            return;
        }
        if let AddrBase::Reg(r) = addr.base {
            if self.shape(Src::Reg(r)) == Shape::Varying {
                // Four unrelated addresses.
                return self.lanes_apart(pc, space, addr, shift, target);
            }
        }
        let (host, stride) = self.checked_host(pc, space, addr, shift);
        // Thread i's element, `stride` bytes apart (the plan keeps 31 × stride below 2^29).
        let at = |i: u8| (i64::from(i) * stride) as i32;
        let (w, p) = (self.group_width(), self.p);
        match (target, bits, stride) {
            (Access::Load(d), 64, 0) => {
                let v = self.b.ins().load(types::I64, mem(), host, 0);
                if self.def_shape() == Shape::Varying {
                    self.set_lanes(d, &vec![v; usize::from(w)]);
                } else {
                    self.set(d, Lane::Zero, v);
                }
            }
            (Access::Load(d), 64, _) => {
                let v: Vec<Value> = (0..w)
                    .map(|i| self.b.ins().load(types::I64, mem(), host, at(i)))
                    .collect();
                self.set_lanes(d, &v);
            }
            (Access::Load(d), _, 0) => {
                let v = self.b.ins().load(types::I32, mem(), host, 0);
                self.set_every(d, v);
            }
            (Access::Load(d), _, 4) => {
                for j in 0..p {
                    let v = self.b.ins().load(types::I32X4, mem(), host, at(4 * j));
                    self.set(d, Lane::Vector(j), v);
                }
            }
            (Access::Load(d), _, _) => {
                for j in 0..p {
                    let lanes: Vec<Value> = (0..4)
                        .map(|i| self.b.ins().load(types::I32, mem(), host, at(4 * j + i)))
                        .collect();
                    let v = self.gather(&lanes);
                    self.set(d, Lane::Vector(j), v);
                }
            }
            // The group's threads storing to one address, one after another: the last one's
            // value stays.
            (Access::Store(src), 64, 0) => {
                let v = self.lane64(src, w - 1);
                self.b.ins().store(mem(), v, host, 0);
            }
            (Access::Store(src), 64, _) => {
                for i in 0..w {
                    let v = self.lane64(src, i);
                    self.b.ins().store(mem(), v, host, at(i));
                }
            }
            (Access::Store(src), _, 0) => {
                let v = self.lane32(src, w - 1);
                self.b.ins().store(mem(), v, host, 0);
            }
            (Access::Store(src), _, 4) => {
                for j in 0..p {
                    let v = self.vec32(src, j);
                    self.b.ins().store(mem(), v, host, at(4 * j));
                }
            }
            (Access::Store(src), _, _) => {
                for i in 0..w {
                    let v = self.lane32(src, i);
                    self.b.ins().store(mem(), v, host, at(i));
                }
            }
        }
    }

    /// The host address of shared offset `first`, when accesses of `1 << shift` bytes at
    /// `first` and `last` (and so everything between) are inside the block's shared memory
    /// and aligned.
    pub(super) fn shared_range(
        &mut self,
        pc: usize,
        first: Value,
        last: Value,
        shift: u32,
    ) -> Value {
        let limits = offset_of!(BlockContext, shared_limits) + 8 * shift as usize;
        let limit = self.load_fixed(types::I64, limits);
        let ok = self.within_both(first, last, limit, shift);
        let shared = self.load_fixed(types::I64, offset_of!(BlockContext, shared));
        let host = self.b.ins().iadd(shared, first);
        let go = self.b.create_block();
        let parted = self.exit_block(pc);
        self.b.ins().brif(ok, go, &[], parted, &[]);
        self.b.switch_to_block(go);
        host
    }

    /// Whether accesses of `1 << shift` bytes at offsets `first` and `last` are aligned and
    /// below `limit` (the rotate-and-compare of the scalar code, twice).
    pub(super) fn within_both(
        &mut self,
        first: Value,
        last: Value,
        limit: Value,
        shift: u32,
    ) -> Value {
        let r0 = self.b.ins().rotr_imm_u(first, i64::from(shift));
        let r3 = self.b.ins().rotr_imm_u(last, i64::from(shift));
        let ok0 = self.b.ins().icmp(IntCC::UnsignedLessThan, r0, limit);
        let ok3 = self.b.ins().icmp(IntCC::UnsignedLessThan, r3, limit);
        self.b.ins().band(ok0, ok3)
    }

    /// The host address of global `first`, when accesses of `1 << shift` bytes at `first` and
    /// `last` (`consecutive`: three elements past `first`) fall in the allocation the access
    /// site used last (after one refresh of that entry from the allocation table on a miss).
    pub(super) fn global_range(
        &mut self,
        pc: usize,
        (first, last, consecutive): (Value, Value, bool),
        shift: u32,
    ) -> Value {
        let site = self.t.sites[&pc];
        let sites = self.load_fixed(types::I64, offset_of!(BlockContext, sites));
        let slot = (self.b.ins()).iadd_imm_u(sites, i64::from(site) * 8 * SITE_WORDS as i64);
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        let miss = self.b.create_block();
        self.check_site(slot, (first, last, consecutive), shift, join, miss);
        self.b.set_cold_block(miss);
        self.b.switch_to_block(miss);
        let length = self.b.ins().iconst(types::I64, 1 << shift);
        crate::cold_call::call(self.b, self.t.resolve, &[self.ctx, slot, first, length]);
        let parted = self.exit_block(pc);
        self.check_site(slot, (first, last, consecutive), shift, join, parted);
        self.b.switch_to_block(join);
        self.b.block_params(join)[0]
    }

    /// Checks `first` and `last` (the same value, `first` plus three elements when
    /// `consecutive`, else the last of four strided elements) against site entry `slot`: to
    /// `join` with the host address of `first`, or to `bad`.
    fn check_site(
        &mut self,
        slot: Value,
        (first, last, consecutive): (Value, Value, bool),
        shift: u32,
        join: Block,
        bad: Block,
    ) {
        let word = |e: &mut Self, i: i32| {
            e.b.ins()
                .load(types::I64, MemFlagsData::trusted(), slot, 8 * i)
        };
        let base = word(self, 0);
        let off0 = self.b.ins().isub(first, base);
        let ok = if first == last || consecutive {
            // Four consecutive elements: the first's against the entry's limit for four (one
            // rotate and compare); one element: against the limit for one.
            let limit = word(self, if first == last { 1 } else { 3 });
            let rotated = self.b.ins().rotr_imm_u(off0, i64::from(shift));
            self.b.ins().icmp(IntCC::UnsignedLessThan, rotated, limit)
        } else {
            // Strided (either way): the first and the last element against the limit for one.
            let limit = word(self, 1);
            let off3 = self.b.ins().isub(last, base);
            self.within_both(off0, off3, limit, shift)
        };
        let delta = word(self, 2);
        let host = self.b.ins().iadd(first, delta);
        self.b.ins().brif(ok, join, &[host.into()], bad, &[]);
    }
}
