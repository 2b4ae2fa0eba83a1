//! Memory accesses: addresses checked and translated to host addresses (global ones through
//! each access site's allocation cache), and atomics.

use std::mem::offset_of;

use chevron_ptx::interp::inst::{Addr, AddrBase, Space};
use chevron_ptx::interp::memory::{SHARED_WINDOW, WINDOW_SIZE};
use chevron_ptx::ir::{Op as IrOp, ScalarType as T};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AtomicRmwOp, Block, InstBuilder, MemFlags, Value};

use super::{Emitter, Unsupported};
use crate::context::BlockContext;

impl Emitter<'_, '_, '_> {
    /// An integer atomic at `host`; the old value, zero-extended.
    pub(super) fn atomic(&mut self, op: IrOp, ty: T, host: Value, x: Value, y: Value) -> Value {
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
        let flags = MemFlags::trusted();
        let old = match op {
            IrOp::Cas => self.b.ins().atomic_cas(flags, host, xv, yv),
            _ => {
                let rmw = match op {
                    IrOp::Add => AtomicRmwOp::Add,
                    IrOp::And => AtomicRmwOp::And,
                    IrOp::Or => AtomicRmwOp::Or,
                    IrOp::Xor => AtomicRmwOp::Xor,
                    IrOp::Exch => AtomicRmwOp::Xchg,
                    IrOp::Min if ty.is_signed() => AtomicRmwOp::Smin,
                    IrOp::Max if ty.is_signed() => AtomicRmwOp::Smax,
                    IrOp::Min => AtomicRmwOp::Umin,
                    _ => AtomicRmwOp::Umax,
                };
                self.b.ins().atomic_rmw(int_ty, flags, rmw, host, xv)
            }
        };
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
            return Ok(self.b.ins().iadd_imm(params, addr.offset));
        }
        let base = match addr.base {
            AddrBase::Reg(r) => self.b.use_var(self.regs[r as usize]),
            _ => self.b.ins().iconst(types::I64, 0),
        };
        let a = self.b.ins().iadd_imm(base, addr.offset);
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        match space {
            Space::Shared => self.shared_access(pc, a, len, join),
            Space::Generic => {
                let off = self.b.ins().iadd_imm(a, -(SHARED_WINDOW as i64));
                let window =
                    self.b
                        .ins()
                        .icmp_imm(IntCC::UnsignedLessThan, off, WINDOW_SIZE as i64);
                let shared = self.b.create_block();
                let global = self.b.create_block();
                self.b.ins().brif(window, shared, &[], global, &[]);
                self.b.switch_to_block(shared);
                self.shared_access(pc, off, len, join);
                self.b.switch_to_block(global);
                self.global_access(pc, a, len, join);
            }
            _ => self.global_access(pc, a, len, join),
        }
        self.b.switch_to_block(join);
        Ok(self.b.block_params(join)[0])
    }

    pub(super) fn aligned(&mut self, a: Value, len: u64) -> Option<Value> {
        let align = len.next_power_of_two();
        (self.t.checks && align > 1).then(|| {
            let low = self.b.ins().band_imm(a, (align - 1) as i64);
            self.b.ins().icmp_imm(IntCC::Equal, low, 0)
        })
    }

    /// Offset `off` into the block's shared memory; jumps to `join` with the host address.
    pub(super) fn shared_access(&mut self, pc: usize, off: Value, len: u64, join: Block) {
        let size = self.load_fixed(types::I64, offset_of!(BlockContext, shared_size));
        let shared = self.load_fixed(types::I64, offset_of!(BlockContext, shared));
        if !self.t.checks {
            // Unchecked: no fault, but the access is clamped into the block's shared memory,
            // so a bad offset reads or writes wrong shared data, never host memory.
            let len_value = self.b.ins().iconst(types::I64, len as i64);
            let room = self.b.ins().isub(size, len_value);
            let fits = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, size, len_value);
            let zero = self.b.ins().iconst(types::I64, 0);
            let limit = self.b.ins().select(fits, room, zero);
            let clamped = self.b.ins().umin(off, limit);
            let host = self.b.ins().iadd(shared, clamped);
            self.b.ins().jump(join, &[host.into()]);
            return;
        }
        let host = self.b.ins().iadd(shared, off);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, off, size);
        let end = self.b.ins().iadd_imm(off, len as i64);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, size);
        let mut ok = self.b.ins().band(inside, fits);
        if let Some(aligned) = self.aligned(off, len) {
            ok = self.b.ins().band(ok, aligned);
        }
        let bad = self.fault_block(pc);
        self.b.ins().brif(ok, join, &[host.into()], bad, &[]);
    }

    /// A global (generic, non-shared) address; jumps to `join` with the host address.
    pub(super) fn global_access(&mut self, pc: usize, a: Value, len: u64, join: Block) {
        // This access's own cache entry: (device base, size, host address) of the allocation
        // it used last, so accesses to different arrays do not evict each other.
        let site = self.site_of[&pc];
        let [base_var, size_var, host_var] = self.site_vars[site as usize];
        let base = self.b.use_var(base_var);
        let size = self.b.use_var(size_var);
        let host_base = self.b.use_var(host_var);
        let off = self.b.ins().isub(a, base);
        let host = self.b.ins().iadd(host_base, off);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, off, size);
        let end = self.b.ins().iadd_imm(off, len as i64);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, size);
        let mut ok = self.b.ins().band(inside, fits);
        let align = len.next_power_of_two();
        if align > 1 {
            // Always checked: the resolver refuses misaligned accesses.
            let low = self.b.ins().band_imm(a, (align - 1) as i64);
            let aligned = self.b.ins().icmp_imm(IntCC::Equal, low, 0);
            ok = self.b.ins().band(ok, aligned);
        }
        let slow = self.b.create_block();
        self.b.ins().brif(ok, join, &[host.into()], slow, &[]);
        self.b.switch_to_block(slow);
        let length = self.b.ins().iconst(types::I64, align as i64);
        let sites = self.load_fixed(types::I64, offset_of!(BlockContext, sites));
        let slot = self.b.ins().iadd_imm(sites, i64::from(site) * 24);
        let call = self
            .b
            .ins()
            .call(self.t.resolve, &[self.ctx, slot, a, length]);
        let resolved = self.b.inst_results(call)[0];
        for (word, var) in [base_var, size_var, host_var].into_iter().enumerate() {
            let v = self
                .b
                .ins()
                .load(types::I64, MemFlags::trusted(), slot, (word * 8) as i32);
            self.b.def_var(var, v);
        }
        let bad = self.fault_block(pc);
        self.b
            .ins()
            .brif(resolved, join, &[resolved.into()], bad, &[]);
    }
}
