//! A call of a device-runtime function (`vprintf`, `malloc`, `free`) left in the flat kernel
//! (`device_services.rs`): its arguments read as the interpreter reads them (a `.param`
//! slot of the caller's frame as the 8 bytes from there, cut at the thread's stack top),
//! one call of [`service`](crate::device_services::service), and its result written back as
//! the interpreter writes it (8 bytes into a frame slot, cut at the stack top).

use std::mem::offset_of;

use chevron_ptx::lowered::{Call, CallSlot, Src};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

use super::{Emitter, Unsupported};
use crate::context::BlockContext;
use crate::device_services::{packed, Service, SERVICE_FAULT};

impl Emitter<'_, '_, '_> {
    /// Emits the service call `call` at `pc`, then goes on to the next instruction.
    pub(super) fn service_call(&mut self, pc: usize, call: &Call) -> Result<(), Unsupported> {
        let service = Service::of(call).ok_or("a call the compiler does not make")?;
        let top = self.t.stack_tops.get(pc).copied().unwrap_or(0);
        let mut args = [0, 1].map(|i| call.args.get(i).copied());
        if service != Service::Vprintf {
            args[1] = None;
        }
        let [a, b] = args.map(|arg| match arg {
            Some(CallSlot::Value(s)) => self.src(s),
            Some(CallSlot::Frame(at)) => self.frame_bytes(at, top),
            None => self.b.ins().iconst(types::I64, 0),
        });
        let sites = self.site_of.len() as u32;
        let packed = self
            .b
            .ins()
            .iconst(types::I64, packed(service, top, sites) as i64);
        let t = self.b.use_var(self.thread);
        let done = self
            .b
            .ins()
            .call(self.t.service, &[self.ctx, t, packed, a, b]);
        let result = self.b.inst_results(done)[0];
        let faulted = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, result, SERVICE_FAULT as i64);
        let (bad, on) = (self.fault_block(pc), self.b.create_block());
        self.b.ins().brif(faulted, bad, &[], on, &[]);
        self.b.switch_to_block(on);
        match call.returns.first() {
            Some(CallSlot::Value(Src::Reg(r))) => self.set(*r, result),
            Some(CallSlot::Frame(at)) => self.store_frame_bytes(*at, top, result),
            _ => {}
        }
        // A free may have ended an allocation an earlier access on this path reached.
        self.checked.clear();
        self.jump_to_pc(pc + 1);
        Ok(())
    }

    /// The host address of byte `at` of the current thread's frame.
    fn frame_at(&mut self, at: u64) -> Value {
        let local = self.load_fixed(types::I64, offset_of!(BlockContext, local));
        let size = self.load_fixed(types::I64, offset_of!(BlockContext, frame_size));
        let t = self.b.use_var(self.thread);
        let skip = self.b.ins().imul(t, size);
        let start = self.b.ins().iadd(local, skip);
        self.b.ins().iadd_imm_u(start, at as i64)
    }

    /// The little-endian value of the (at most 8) bytes of the thread's frame from `at` up
    /// to its stack top `top`: what the interpreter reads as a call's argument.
    fn frame_bytes(&mut self, at: u64, top: u64) -> Value {
        let len = top.saturating_sub(at).min(8);
        let mut value = self.b.ins().iconst(types::I64, 0);
        if len == 0 {
            return value;
        }
        let host = self.frame_at(at);
        if len == 8 {
            return self.b.ins().load(types::I64, super::mem(), host, 0);
        }
        for i in 0..len {
            let byte = self
                .b
                .ins()
                .uload8(types::I64, MemFlagsData::trusted(), host, i as i32);
            let shifted = self.b.ins().ishl_imm_u(byte, (8 * i) as i64);
            value = self.b.ins().bor(value, shifted);
        }
        value
    }

    /// Stores the low bytes of `value` into the thread's frame from `at` up to its stack top
    /// `top`, at most 8: what the interpreter writes as a call's result.
    fn store_frame_bytes(&mut self, at: u64, top: u64, value: Value) {
        let len = top.saturating_sub(at).min(8);
        if len == 0 {
            return;
        }
        let host = self.frame_at(at);
        if len == 8 {
            self.b.ins().store(super::mem(), value, host, 0);
            return;
        }
        for i in 0..len {
            let shifted = self.b.ins().ushr_imm_u(value, (8 * i) as i64);
            self.b
                .ins()
                .istore8(MemFlagsData::trusted(), shifted, host, i as i32);
        }
    }
}
