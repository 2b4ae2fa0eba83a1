//! `call` and `ret`: arguments and return values passed through `.param` variables (or
//! registers) of the caller's and callee's frames, a new register level and local frame per
//! call (so recursion works), indirect calls through function addresses, and the device-runtime
//! functions the CPU device provides itself (`vprintf`, `malloc`, `free`, `__assertfail`, and
//! the device runtime's launches in `device_calls.rs`).

use super::{for_lanes, narrow, Flow, Launch};
use crate::interp::block::Block;
use crate::interp::fault::{ExecFault, FaultKind, LoadError};
use crate::interp::inst::{Builtin, Call, CallSlot, CallTarget, Op, Src};
use crate::interp::memory::{FUNCTION_WINDOW, WINDOW_SIZE};
use crate::interp::printf;
use crate::interp::program::{Decoder, ParamSlot};
use crate::interp::warp::{CallFrame, Warp};
use crate::ir::{self, Operand, ScalarType as T};

fn slot(d: &Decoder<'_>, inst: &ir::Instruction, op: &Operand) -> Result<CallSlot, LoadError> {
    match d.src(inst, op, T::B64)? {
        Src::Frame(offset) => Ok(CallSlot::Frame(offset)),
        other => Ok(CallSlot::Value(other)),
    }
}

pub(super) fn decode(d: &Decoder<'_>, inst: &ir::Instruction) -> Result<Op, LoadError> {
    let mut operands = inst.operands.iter().peekable();
    let mut returns = Vec::new();
    if let Some(Operand::List(items)) = operands.peek() {
        for item in items {
            returns.push(slot(d, inst, item)?);
        }
        operands.next();
    }
    let target = match operands.next() {
        Some(Operand::Symbol(name)) => match d.src(inst, &Operand::Symbol(name.clone()), T::U64)? {
            Src::Imm(addr) if (FUNCTION_WINDOW..FUNCTION_WINDOW + WINDOW_SIZE).contains(&addr) => {
                CallTarget::Direct(((addr - FUNCTION_WINDOW) / 16) as u32)
            }
            _ => return Err(d.error(inst, format!("`{name}` is not a function"))),
        },
        Some(op @ Operand::Register(_)) => CallTarget::Indirect(d.src(inst, op, T::U64)?),
        _ => return Err(d.error(inst, "missing call target")),
    };
    let mut args = Vec::new();
    if let Some(Operand::List(items)) = operands.peek() {
        for item in items {
            args.push(slot(d, inst, item)?);
        }
    }
    Ok(Op::Call(Box::new(Call {
        target,
        returns,
        args,
    })))
}

/// Reads a caller-side argument for `lane` as a value (at most 8 bytes).
pub(super) fn arg_value(w: &Warp, slot: CallSlot, lane: usize) -> u64 {
    match slot {
        CallSlot::Frame(offset) => {
            let at = (w.frame_base[lane] + offset) as usize;
            let local = &w.local[lane];
            let mut buf = [0u8; 8];
            let end = (at + 8).min(local.len());
            if at < end {
                buf[..end - at].copy_from_slice(&local[at..end]);
            }
            u64::from_le_bytes(buf)
        }
        CallSlot::Value(src) => w.get(src, lane),
    }
}

fn target_of(w: &Warp, l: &Launch<'_>, call: &Call, lane: usize) -> Result<u32, ExecFault> {
    let index = match call.target {
        CallTarget::Direct(i) => i,
        CallTarget::Indirect(src) => {
            let addr = w.get(src, lane);
            let index = addr.wrapping_sub(FUNCTION_WINDOW) / 16;
            if addr < FUNCTION_WINDOW
                || !addr.is_multiple_of(16)
                || index >= l.program.functions.len() as u64
            {
                return Err(ExecFault::at(
                    FaultKind::InvalidCall,
                    lane as u32,
                    addr,
                    "call through a pointer that is not a function",
                ));
            }
            index as u32
        }
    };
    Ok(index)
}

/// Executes `call` for the lanes of `mask`.
pub(super) fn call(
    call: &Call,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    narrow(w, mask);
    let depth = w.gdepth as usize;
    let next = w.gpc + 1;
    let mut entered = false;
    for_lanes!(mask, |lane| {
        let index = target_of(w, l, call, lane)?;
        let callee = &l.program.functions[index as usize];
        if callee.builtin == Some(Builtin::AssertFail) {
            super::assert::fail(call, w, b, l, lane);
            entered = true;
            continue;
        }
        if let Some(builtin) = callee.builtin {
            let result = run_builtin(builtin, call, w, b, l, lane)?;
            if let Some(CallSlot::Value(Src::Reg(r))) = call.returns.first() {
                w.set(*r, lane, result);
            } else if let Some(CallSlot::Frame(offset)) = call.returns.first() {
                let at = (w.frame_base[lane] + offset) as usize;
                let local = &mut w.local[lane];
                let end = (at + 8).min(local.len());
                local[at..end].copy_from_slice(&result.to_le_bytes()[..end - at]);
            }
            w.pc[lane] = next;
            continue;
        }
        if !callee.defined {
            return Err(ExecFault::new(
                FaultKind::InvalidCall,
                lane as u32,
                format!(
                    "call to `{}`, which is declared but not defined",
                    callee.name
                ),
            ));
        }
        let max_depth = w.max_depth();
        if depth + 1 >= max_depth || !w.ensure_depth(depth + 1) {
            return Err(ExecFault::new(
                FaultKind::StackOverflow,
                lane as u32,
                format!(
                    "calls nested deeper than {max_depth} ({} registers per call level)",
                    w.region / 32
                ),
            ));
        }
        let frame = CallFrame {
            func: w.gfunc,
            call_pc: w.gpc,
            frame_base: w.frame_base[lane],
            stack_top: w.stack_top[lane],
        };
        let base = w.stack_top[lane].next_multiple_of(16);
        w.set_stack_top(lane, base + callee.frame_size)?;
        for (arg, param) in call.args.iter().zip(&callee.params) {
            match (*arg, *param) {
                (CallSlot::Frame(offset), ParamSlot::Frame { offset: to, size }) => {
                    let from = (frame.frame_base + offset) as usize;
                    let to = (base + to) as usize;
                    let local = &mut w.local[lane];
                    let size = (size as usize).min(local.len().saturating_sub(from));
                    local.copy_within(from..from + size, to);
                }
                (arg, ParamSlot::Frame { offset: to, size }) => {
                    let value = arg_value(w, arg, lane);
                    let to = (base + to) as usize;
                    let size = (size as usize).min(8);
                    w.local[lane][to..to + size].copy_from_slice(&value.to_le_bytes()[..size]);
                }
                (arg, ParamSlot::Reg { reg, bits }) => {
                    let value = arg_value(w, arg, lane)
                        & crate::interp::memory::byte_mask(u32::from(bits) / 8);
                    let at = (depth + 1) * w.region + ((reg as usize) << 5) + lane;
                    w.regs[at] = value;
                }
            }
        }
        w.stacks[lane].push(frame);
        w.frame_base[lane] = base;
        w.func[lane] = index;
        w.pc[lane] = 0;
        entered = true;
    });
    if !entered {
        return Ok(Flow::Next);
    }
    w.group = 0;
    Ok(Flow::Reschedule)
}

/// Executes `ret` for the lanes of `mask`; returning from the kernel exits the lane.
pub(super) fn ret(
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    mask: u32,
) -> Result<Flow, ExecFault> {
    narrow(w, mask);
    let depth = w.gdepth as usize;
    let callee = &l.program.functions[w.gfunc as usize];
    let mut exited = 0u32;
    for_lanes!(mask, |lane| {
        let Some(frame) = w.stacks[lane].pop() else {
            exited |= 1 << lane;
            continue;
        };
        let caller = &l.program.functions[frame.func as usize];
        if let Some(Op::Call(call)) = caller.insts.get(frame.call_pc as usize).map(|i| &i.op) {
            for (dest, slot) in call.returns.iter().zip(&callee.returns) {
                // A frame-to-frame return (structs by value) copies every byte.
                if let (ParamSlot::Frame { offset, size }, CallSlot::Frame(to)) = (*slot, *dest) {
                    let from = (w.frame_base[lane] + offset) as usize;
                    let to = (frame.frame_base + to) as usize;
                    let local = &mut w.local[lane];
                    let size = (size as usize)
                        .min(local.len().saturating_sub(from))
                        .min(local.len().saturating_sub(to));
                    local.copy_within(from..from + size, to);
                    continue;
                }
                let value_bytes: ([u8; 8], usize) = match *slot {
                    ParamSlot::Frame { offset, size } => {
                        let at = (w.frame_base[lane] + offset) as usize;
                        let local = &w.local[lane];
                        let size = (size as usize).min(8).min(local.len().saturating_sub(at));
                        let mut buf = [0u8; 8];
                        buf[..size].copy_from_slice(&local[at..at + size]);
                        (buf, size)
                    }
                    ParamSlot::Reg { reg, bits } => (
                        w.get(Src::Reg(reg), lane).to_le_bytes(),
                        usize::from(bits / 8).max(1),
                    ),
                };
                match *dest {
                    CallSlot::Frame(offset) => {
                        let at = (frame.frame_base + offset) as usize;
                        let (buf, size) = value_bytes;
                        let local = &mut w.local[lane];
                        let size = size.min(local.len().saturating_sub(at));
                        local[at..at + size].copy_from_slice(&buf[..size]);
                    }
                    CallSlot::Value(Src::Reg(r)) => {
                        let at = (depth - 1) * w.region + ((r as usize) << 5) + lane;
                        w.regs[at] = u64::from_le_bytes(value_bytes.0);
                    }
                    CallSlot::Value(_) => {}
                }
            }
        }
        w.frame_base[lane] = frame.frame_base;
        w.set_stack_top(lane, frame.stack_top)?;
        w.func[lane] = frame.func;
        w.pc[lane] = frame.call_pc + 1;
    });
    if exited != 0 {
        w.exited |= exited;
        b.exited(exited.count_ones());
    }
    w.group = 0;
    Ok(Flow::Reschedule)
}

/// Runs a device-runtime function for one lane and returns its result.
fn run_builtin(
    builtin: Builtin,
    call: &Call,
    w: &mut Warp,
    b: &mut Block,
    l: &Launch<'_>,
    lane: usize,
) -> Result<u64, ExecFault> {
    let arg = |i: usize| {
        call.args
            .get(i)
            .map(|a| arg_value(w, *a, lane))
            .unwrap_or(0)
    };
    match builtin {
        Builtin::Vprintf => {
            let (format, args) = (arg(0), arg(1));
            printf::vprintf(w, b, l, lane, format, args)
        }
        Builtin::Malloc => Ok(l.memory.alloc(arg(0).max(1), 16).unwrap_or(0)),
        Builtin::Free => {
            let ptr = arg(0);
            if ptr != 0 {
                l.memory.free(ptr).map_err(|e| {
                    ExecFault::at(
                        FaultKind::InvalidCall,
                        lane as u32,
                        ptr,
                        format!("free: {e}"),
                    )
                })?;
            }
            Ok(0)
        }
        Builtin::Device(kind) => super::device_calls::run(kind, call, w, b, l, lane),
        // Handled by `call` before it gets here: the lane stops.
        Builtin::AssertFail => Ok(0),
    }
}
