//! Memory accesses: addresses checked and translated to host addresses (global ones through
//! each access site's allocation cache), and atomics.

use std::mem::offset_of;

use chevron_ptx::interp::memory::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use chevron_ptx::ir::{Op as IrOp, ScalarType as T};
use chevron_ptx::lowered::{Addr, AddrBase, Space};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AtomicRmwOp, Block, InstBuilder, MemFlagsData, Value};

use cranelift_frontend::FunctionBuilder;

use super::{spin, Emitter, Unsupported};

/// Memory of the block that compiled code addresses by offset.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Region {
    Shared,
    /// The current thread's stack frame (its local memory).
    Frame,
    /// The launch's parameter buffer (read only: stores to it are not compiled).
    Params,
}

/// An access checked on every path to the instruction being emitted.
pub(super) struct Checked {
    space: Space,
    pub(super) addr: Addr,
    /// Bytes checked from the address on.
    len: u64,
    host: Value,
}
use crate::context::{BlockContext, SITE_WORDS};

impl Emitter<'_, '_, '_> {
    /// An integer atomic at `host`; the old value, zero-extended.
    pub(super) fn atomic(&mut self, op: IrOp, ty: T, host: Value, x: Value, y: Value) -> Value {
        let wide = ty.size() == 8;
        let narrow = |e: &mut Self, v: Value| {
            if wide {
                v
            } else {
                e.b.ins().ireduce(types::I32, v)
            }
        };
        let (xv, yv) = (narrow(self, x), narrow(self, y));
        let old = locked_atomic(self.b, op, ty.is_signed(), host, xv, yv);
        if wide {
            old
        } else {
            self.b.ins().uextend(types::I64, old)
        }
    }

    /// An integer atomic on the block's shared memory at `host`, as a plain load, operation
    /// and store: a block's threads run one after another on one worker, whose shared memory
    /// no other host thread touches, so no locked instruction is needed. The old value,
    /// zero-extended.
    pub(super) fn shared_atomic(
        &mut self,
        op: IrOp,
        ty: T,
        host: Value,
        x: Value,
        y: Value,
    ) -> Value {
        let wide = ty.size() == 8;
        let int_ty = if wide { types::I64 } else { types::I32 };
        let narrow = |e: &mut Self, v: Value| {
            if wide {
                v
            } else {
                e.b.ins().ireduce(types::I32, v)
            }
        };
        let (xv, yv) = (narrow(self, x), narrow(self, y));
        let flags = MemFlagsData::trusted();
        let old = self.b.ins().load(int_ty, flags, host, 0);
        let new = atomic_result(self.b, op, ty.is_signed(), old, xv, yv);
        self.b.ins().store(flags, new, host, 0);
        if wide {
            old
        } else {
            self.b.ins().uextend(types::I64, old)
        }
    }

    /// The host address of an access of `len` bytes, branching to a fault when it is bad.
    pub(super) fn address(
        &mut self,
        pc: usize,
        space: Space,
        addr: &Addr,
        len: u64,
    ) -> Result<Value, Unsupported> {
        if addr.base == AddrBase::KernelParam {
            let params = self.load_fixed(types::I64, offset_of!(BlockContext, params));
            return Ok(self.b.ins().iadd_imm_u(params, addr.offset));
        }
        let earlier = self.checked.iter().find(|c| {
            c.space == space
                && c.addr.base == addr.base
                && c.addr.offset == addr.offset
                && len <= c.len
        });
        if let Some(earlier) = earlier {
            // Inside an access checked before (same address, no fewer bytes, so no weaker
            // alignment): its host address.
            return Ok(earlier.host);
        }
        let base = match addr.base {
            AddrBase::Reg(r) => self.reg(r),
            _ => self.b.ins().iconst(types::I64, 0),
        };
        let mut a = self.b.ins().iadd_imm_u(base, addr.offset);
        if matches!(space, Space::Shared | Space::Local) {
            // Shared and local addresses are 32 bits: nvcc's `[%r + offset]` wraps.
            a = self.b.ins().band_imm_u(a, 0xffff_ffff);
        }
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        match space {
            Space::Shared => self.region_access(pc, Region::Shared, a, len, join),
            Space::Local => self.region_access(pc, Region::Frame, a, len, join),
            Space::Param if addr.base == AddrBase::Frame => {
                self.region_access(pc, Region::Frame, a, len, join)
            }
            // Through a register: the kernel's parameters (`mov %rd, param`), else the frame.
            Space::Param => {
                self.windows(pc, a, len, join, &[(PARAM_WINDOW, Region::Params)]);
                self.region_access(pc, Region::Frame, a, len, join);
            }
            Space::Generic => {
                if self.ordered_shared_interpreted && spin::ordered(self.t.code, pc) {
                    // A volatile or ordered access reaching shared memory may be
                    // warp-synchronous code: the interpreter runs the block (`subset.rs`).
                    let off = self.b.ins().iadd_imm_u(a, -(SHARED_WINDOW as i64));
                    let inside =
                        (self.b.ins()).icmp_imm_u(IntCC::UnsignedLessThan, off, WINDOW_SIZE as i64);
                    let (fault, other) = (self.fault_block(pc), self.b.create_block());
                    self.b.ins().brif(inside, fault, &[], other, &[]);
                    self.b.switch_to_block(other);
                }
                // Shared, local (a kernel with a stack frame), parameters (a kernel that takes
                // their addresses), else global.
                let mut windows = vec![(SHARED_WINDOW, Region::Shared)];
                if self.t.code.frame_size != 0 {
                    windows.push((LOCAL_WINDOW, Region::Frame));
                }
                if self.param_addresses {
                    windows.push((PARAM_WINDOW, Region::Params));
                }
                self.windows(pc, a, len, join, &windows);
                self.global_access(pc, a, len, join);
            }
            _ => self.global_access(pc, a, len, join),
        }
        self.b.switch_to_block(join);
        let host = self.b.block_params(join)[0];
        if self.t.code.insts[pc].guard.is_none() {
            // Checked on every path from here to the end of the instruction's straight line.
            self.checked.push(Checked {
                space,
                addr: *addr,
                len,
                host,
            });
        }
        Ok(host)
    }

    /// For each `(window, region)`: an address `a` inside the window goes to that region
    /// (at its offset from the window); code emitted next handles the rest.
    fn windows(&mut self, pc: usize, a: Value, len: u64, join: Block, windows: &[(u64, Region)]) {
        for &(window, region) in windows {
            let off = self.b.ins().iadd_imm_u(a, -(window as i64));
            let inside = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThan, off, WINDOW_SIZE as i64);
            let here = self.b.create_block();
            let other = self.b.create_block();
            self.b.ins().brif(inside, here, &[], other, &[]);
            self.b.switch_to_block(here);
            self.region_access(pc, region, off, len, join);
            self.b.switch_to_block(other);
        }
    }

    /// The host address of offset `off` of `region` for an access of `len` bytes: checked
    /// (bounds and alignment in one compare against the region's limit for `len`) or clamped.
    pub(super) fn region_access(
        &mut self,
        pc: usize,
        region: Region,
        off: Value,
        len: u64,
        join: Block,
    ) {
        let shift = align_shift(len);
        let (start, size, limit) = match region {
            Region::Shared => {
                let limits = offset_of!(BlockContext, shared_limits) + 8 * shift as usize;
                (
                    self.load_fixed(types::I64, offset_of!(BlockContext, shared)),
                    self.load_fixed(types::I64, offset_of!(BlockContext, shared_size)),
                    self.load_fixed(types::I64, limits),
                )
            }
            Region::Params => {
                let limits = offset_of!(BlockContext, params_limits) + 8 * shift as usize;
                (
                    self.load_fixed(types::I64, offset_of!(BlockContext, params)),
                    self.load_fixed(types::I64, offset_of!(BlockContext, params_size)),
                    self.load_fixed(types::I64, limits),
                )
            }
            Region::Frame => {
                let local = self.load_fixed(types::I64, offset_of!(BlockContext, local));
                let size = self.load_fixed(types::I64, offset_of!(BlockContext, frame_size));
                let t = self.b.use_var(self.thread);
                let skip = self.b.ins().imul(t, size);
                let start = self.b.ins().iadd(local, skip);
                // The interpreter's lane reaches its stack top here, known at compile time.
                let top = self.t.stack_tops.get(pc).copied().unwrap_or(0);
                let limit = self
                    .b
                    .ins()
                    .iconst(types::I64, access_limit(top, shift) as i64);
                (start, size, limit)
            }
        };
        if !self.t.checks && region != Region::Params {
            // Unchecked: no fault, but the access is clamped into the region, so a bad offset
            // reads or writes wrong data of the block, never other host memory (the buffers
            // have room for the widest access past their end; the parameter buffer, which is
            // the caller's, does not, and stays checked).
            let len_value = self.b.ins().iconst(types::I64, len as i64);
            let room = self.b.ins().isub(size, len_value);
            let fits = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, size, len_value);
            let zero = self.b.ins().iconst(types::I64, 0);
            let limit = self.b.ins().select(fits, room, zero);
            let clamped = self.b.ins().umin(off, limit);
            let host = self.b.ins().iadd(start, clamped);
            self.b.ins().jump(join, &[host.into()]);
            return;
        }
        let ok = self.within(off, shift, limit);
        let host = self.b.ins().iadd(start, off);
        let bad = self.fault_block(pc);
        self.b.ins().brif(ok, join, &[host.into()], bad, &[]);
    }

    /// Whether `off` (from the start of a region) is a multiple of `1 << shift` and leaves
    /// room for the access, given `limit` = [`access_limit`] of the region: one rotate and one
    /// unsigned compare (a misaligned offset rotates its low bits to the top, past any limit).
    fn within(&mut self, off: Value, shift: u32, limit: Value) -> Value {
        let rotated = if shift == 0 {
            off
        } else {
            self.b.ins().rotr_imm_u(off, i64::from(shift))
        };
        self.b.ins().icmp(IntCC::UnsignedLessThan, rotated, limit)
    }

    /// A global (generic, non-shared) address; jumps to `join` with the host address.
    pub(super) fn global_access(&mut self, pc: usize, a: Value, len: u64, join: Block) {
        // This access's own cache entry, in memory: (device base, limit, host address minus
        // device base, `SITE_WORDS`) of the allocation it used last, so accesses to different arrays do not
        // evict each other. The limit is `access_limit` of the allocation; 0 (no entry) fails.
        let site = self.site_of[&pc];
        let sites = self.load_fixed(types::I64, offset_of!(BlockContext, sites));
        let slot = (self.b.ins()).iadd_imm_u(sites, i64::from(site) * 8 * SITE_WORDS as i64);
        let word = |e: &mut Self, i: i32| {
            e.b.ins()
                .load(types::I64, MemFlagsData::trusted(), slot, 8 * i)
        };
        let base = word(self, 0);
        let off = self.b.ins().isub(a, base);
        let shift = align_shift(len);
        let limit = word(self, 1);
        let ok = self.within(off, shift, limit);
        let delta = word(self, 2);
        let host = self.b.ins().iadd(a, delta);
        let slow = self.b.create_block();
        self.b.ins().brif(ok, join, &[host.into()], slow, &[]);
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        let length = self.b.ins().iconst(types::I64, 1i64 << shift);
        // The trampoline keeps every register: nothing needs saving around the call.
        let resolved = crate::cold_call::call(self.b, self.t.resolve, &[self.ctx, slot, a, length]);
        let bad = self.fault_block(pc);
        self.b
            .ins()
            .brif(resolved, join, &[resolved.into()], bad, &[]);
    }
}

/// What an integer atomic `op` (of the inline set: add, and, or, xor, exch, cas, min, max)
/// leaves in memory holding `old`, with operands `x` and `y` (cas: compare with `x`, swap in
/// `y`) of `old`'s type.
pub(crate) fn atomic_result(
    b: &mut FunctionBuilder<'_>,
    op: IrOp,
    signed: bool,
    old: Value,
    x: Value,
    y: Value,
) -> Value {
    match op {
        IrOp::Add => b.ins().iadd(old, x),
        IrOp::And => b.ins().band(old, x),
        IrOp::Or => b.ins().bor(old, x),
        IrOp::Xor => b.ins().bxor(old, x),
        IrOp::Exch => x,
        IrOp::Cas => {
            let equal = b.ins().icmp(IntCC::Equal, old, x);
            b.ins().select(equal, y, old)
        }
        IrOp::Min if signed => b.ins().smin(old, x),
        IrOp::Max if signed => b.ins().smax(old, x),
        IrOp::Min => b.ins().umin(old, x),
        _ => b.ins().umax(old, x),
    }
}

/// An integer atomic `op` (of the inline set) at `host` as one locked host instruction (or a
/// compare-and-swap), with operands `x` and `y` of the memory's type; the old value.
pub(crate) fn locked_atomic(
    b: &mut FunctionBuilder<'_>,
    op: IrOp,
    signed: bool,
    host: Value,
    x: Value,
    y: Value,
) -> Value {
    let flags = MemFlagsData::trusted();
    let rmw = match op {
        IrOp::Cas => return b.ins().atomic_cas(flags, host, x, y),
        IrOp::Add => AtomicRmwOp::Add,
        IrOp::And => AtomicRmwOp::And,
        IrOp::Or => AtomicRmwOp::Or,
        IrOp::Xor => AtomicRmwOp::Xor,
        IrOp::Exch => AtomicRmwOp::Xchg,
        IrOp::Min if signed => AtomicRmwOp::Smin,
        IrOp::Max if signed => AtomicRmwOp::Smax,
        IrOp::Min => AtomicRmwOp::Umin,
        _ => AtomicRmwOp::Umax,
    };
    let ty = b.func.dfg.value_type(x);
    b.ins().atomic_rmw(ty, flags, rmw, host, x)
}

/// Whether compiled code runs the integer atomic `op` of `ty` inline (else through the
/// interpreter's arithmetic in a compare-and-swap loop).
pub(crate) fn inline_atomic(op: IrOp, ty: T) -> bool {
    matches!(ty.size(), 4 | 8)
        && !ty.is_float()
        && matches!(
            op,
            IrOp::Add
                | IrOp::Min
                | IrOp::Max
                | IrOp::And
                | IrOp::Or
                | IrOp::Xor
                | IrOp::Exch
                | IrOp::Cas
        )
}

/// log2 of the alignment an access of `len` bytes needs (its size rounded up to a power of
/// two).
fn align_shift(len: u64) -> u32 {
    len.max(1).next_power_of_two().trailing_zeros()
}

/// What [`Emitter::within`] compares against for accesses of `1 << shift` bytes into a region
/// of `size` bytes: one more than the last aligned offset where such an access fits, counted
/// in units of `1 << shift` (0 when none fits).
pub fn access_limit(size: u64, shift: u32) -> u64 {
    let len = 1u64 << shift;
    if size < len {
        0
    } else {
        ((size - len) >> shift) + 1
    }
}
