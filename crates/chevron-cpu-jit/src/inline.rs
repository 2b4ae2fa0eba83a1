//! Direct calls flattened into the kernel: the compiler sees one instruction list with every
//! call to a defined device function replaced by the callee's code, so its analyses (liveness,
//! register kinds, resume points) and its emitter need no notion of calls.
//!
//! Each inlined call is laid out as the interpreter runs it (`interp/exec/calls.rs`):
//! - the callee's registers are its own, renumbered past the caller's (one set per call site);
//! - its frame lies at the caller's stack top rounded up to 16, and is zeroed on entry (the
//!   interpreter grows a lane's stack with zeros and shrinks it on return);
//! - arguments are copied into its `.param` frame slots or `.reg` parameters, return values
//!   back into the caller's slots or registers, at each `ret` and at the end of the callee;
//! - every instruction carries the stack top the interpreter would have there, so a local
//!   access is checked against exactly the bytes the interpreter's lane can reach.
//!
//! One difference is left: a callee that reads a register before writing it sees what its
//! inlined copy held last (zero at first) where the interpreter's lane sees what the last call
//! at the same depth left; PTX leaves such a value undefined.
//!
//! A call of `__assertfail` (a failed device `assert`) becomes a `trap`: the compiled block
//! stops there and the interpreter runs it again, making the call and reporting it. A call of
//! `vprintf`, `malloc` or `free` stays a call, of a service compiled code makes through the
//! interpreter's own code (`device_services.rs`). Indirect calls, recursion, the rest of the
//! device runtime (device-side launches) and argument forms the interpreter reads with
//! clamping (a `.param` variable passed to a `.reg` parameter) are refused with a reason: the
//! kernel then stays interpreted.

use chevron_ptx::interp::program::{FunctionCode, ParamSlot};
use chevron_ptx::lowered::{
    Addr, AddrBase, Builtin, Call, CallSlot, CallTarget, Inst, Op, Space, Src,
};

use chevron_ptx::interp::memory::FUNCTION_WINDOW;
use chevron_ptx::ir::{Compare, ScalarType};

use crate::device_services::Service;

/// Instructions and registers a flattened kernel may have (compile time and the liveness
/// sets, instructions × registers bits, stay bounded).
const MAX_INSTRUCTIONS: usize = 20_000;
const MAX_REGISTERS: u32 = 8_192;
/// Calls nested deeper than this are not flattened.
const MAX_DEPTH: usize = 32;
/// Bytes of stack a flattened kernel's thread may use.
const MAX_STACK: u64 = 1 << 20;
/// Functions an indirect call may reach that are inlined at it.
const MAX_CANDIDATES: usize = 16;

/// A kernel with its calls inlined.
pub struct Flat {
    pub code: FunctionCode,
    /// Per instruction: the thread's stack top there, in bytes of local memory.
    pub stack_tops: Vec<u64>,
}

/// `kernel` with every call inlined (`functions`: the program's functions, which calls index);
/// `Ok(None)` when it makes no call; `Err` says why a call cannot be inlined.
pub fn flatten(kernel: &FunctionCode, functions: &[FunctionCode]) -> Result<Option<Flat>, String> {
    if !kernel
        .insts
        .iter()
        .any(|inst| matches!(inst.op, Op::Call(_)))
    {
        return Ok(None);
    }
    let mut out = Flattener {
        functions,
        insts: Vec::new(),
        source: Vec::new(),
        stack_tops: Vec::new(),
        // The kernel's registers, then the scratch register of copies between frames.
        scratch: kernel.num_regs,
        registers: kernel.num_regs + 1,
        extent: kernel.frame_size,
        active: vec![],
    };
    let instance = Instance {
        function: kernel,
        registers: 0,
        frame: 0,
        stack_top: kernel.frame_size,
    };
    out.function(&instance, None)?;
    let code = FunctionCode {
        name: kernel.name.clone(),
        is_kernel: kernel.is_kernel,
        insts: out.insts,
        source: out.source,
        num_regs: out.registers,
        frame_size: out.extent,
        params: kernel.params.clone(),
        returns: kernel.returns.clone(),
        kernel_params: kernel.kernel_params.clone(),
        param_size: kernel.param_size,
        defined: kernel.defined,
        builtin: kernel.builtin,
        carry_reg: kernel.carry_reg,
        grid_sync: kernel.grid_sync,
        cluster_dims: kernel.cluster_dims,
        explicit_cluster: kernel.explicit_cluster,
    };
    Ok(Some(Flat {
        code,
        stack_tops: out.stack_tops,
    }))
}

/// One function's code placed in the flat kernel.
struct Instance<'a> {
    function: &'a FunctionCode,
    /// The first register of its registers.
    registers: u32,
    /// Where its frame starts, in local memory.
    frame: u64,
    stack_top: u64,
}

/// Where a callee's `ret` leads: the caller's call and instance.
struct Return<'a, 'b> {
    call: &'b Call,
    caller: &'b Instance<'a>,
    /// Return-sequence branches to patch to the instruction after the call.
    exits: Vec<usize>,
}

struct Flattener<'a> {
    functions: &'a [FunctionCode],
    insts: Vec<Inst>,
    source: Vec<chevron_ptx::ir::Instruction>,
    stack_tops: Vec<u64>,
    /// The register copies between frames go through.
    scratch: u32,
    /// Registers used so far.
    registers: u32,
    /// The deepest stack top.
    extent: u64,
    /// Functions being inlined, outermost first (recursion check).
    active: Vec<*const FunctionCode>,
}

impl<'a> Flattener<'a> {
    fn push(&mut self, inst: Inst, source: &chevron_ptx::ir::Instruction, stack_top: u64) -> usize {
        self.insts.push(inst);
        self.source.push(source.clone());
        self.stack_tops.push(stack_top);
        self.insts.len() - 1
    }

    /// Places `instance`'s instructions; `ret` is where its `ret`s go (None: the kernel's own
    /// code, whose `ret` exits the thread).
    fn function(
        &mut self,
        instance: &Instance<'a>,
        mut ret: Option<&mut Return<'a, '_>>,
    ) -> Result<(), String> {
        let code = instance.function;
        if self.active.len() > MAX_DEPTH {
            return Err(format!("calls nested deeper than {MAX_DEPTH}"));
        }
        self.active.push(code as *const FunctionCode);
        // Original instruction → flat index (one past the end: the implicit return).
        let mut map = vec![0usize; code.insts.len() + 1];
        let mut branches: Vec<(usize, u32)> = Vec::new();
        for (pc, inst) in code.insts.iter().enumerate() {
            map[pc] = self.insts.len();
            if self.insts.len() > MAX_INSTRUCTIONS {
                return Err(format!(
                    "more than {MAX_INSTRUCTIONS} instructions with calls inlined"
                ));
            }
            let source = code
                .source
                .get(pc)
                .ok_or("an instruction without its source")?;
            match (&inst.op, ret.as_deref_mut()) {
                (Op::Call(call), _) => self.call(instance, inst.guard, call, source)?,
                (Op::Ret, Some(ret)) => {
                    let skip = inst.guard.map(|(reg, negated)| {
                        let guard = Some((reg + instance.registers, !negated));
                        self.push(
                            Inst {
                                guard,
                                op: Op::Bra { target: 0 },
                            },
                            source,
                            instance.stack_top,
                        )
                    });
                    self.return_values(instance, ret, source)?;
                    if let Some(skip) = skip {
                        self.set_target(skip, self.insts.len());
                    }
                }
                (Op::Brx { .. }, _) => {
                    return Err(format!(
                        "`brx.idx` in a called function (line {})",
                        code.line(pc)
                    ))
                }
                (op, _) => {
                    // Registers and frame offsets moved to the instance's (the lowered form
                    // names them all); branch targets are mapped below.
                    let mut op = op.clone();
                    op.relocate(instance.registers, instance.frame);
                    if let Op::Bra { target } = op {
                        branches.push((self.insts.len(), target));
                    }
                    let guard = inst
                        .guard
                        .map(|(reg, negated)| (reg + instance.registers, negated));
                    self.push(Inst { guard, op }, source, instance.stack_top);
                }
            }
        }
        map[code.insts.len()] = self.insts.len();
        if let Some(ret) = ret {
            // Running off the end of a function returns from it.
            let source = code
                .source
                .last()
                .or_else(|| ret.caller.function.source.first())
                .ok_or("a call from an empty function")?
                .clone();
            self.return_values(instance, ret, &source)?;
        }
        for (at, target) in branches {
            let to = *map
                .get(target as usize)
                .ok_or_else(|| format!("a branch past the end of `{}`", code.name))?;
            self.set_target(at, to);
        }
        self.active.pop();
        Ok(())
    }

    fn set_target(&mut self, at: usize, to: usize) {
        if let Op::Bra { target } = &mut self.insts[at].op {
            *target = to as u32;
        }
    }

    /// Inlines `call` made by `caller`.
    fn call(
        &mut self,
        caller: &Instance<'a>,
        guard: Option<(u32, bool)>,
        call: &Call,
        source: &chevron_ptx::ir::Instruction,
    ) -> Result<(), String> {
        let line = source.span.line;
        let index = match call.target {
            CallTarget::Direct(index) => index,
            CallTarget::Indirect(target) => {
                return self.dispatch(caller, guard, call, target, source)
            }
        };
        let callee = self
            .functions
            .get(index as usize)
            .ok_or_else(|| format!("a call to an unknown function (line {line})"))?;
        if callee.builtin == Some(Builtin::AssertFail) {
            // A failed device `assert`: the compiled block stops here as at a fault, and the
            // interpreter, running the block again, makes the call and writes the report. The
            // assertion's condition stays compiled.
            let guard = guard.map(|(reg, negated)| (reg + caller.registers, negated));
            self.push(
                Inst {
                    guard,
                    op: Op::Trap,
                },
                source,
                caller.stack_top,
            );
            return Ok(());
        }
        let service = match callee.builtin {
            Some(Builtin::Vprintf) => Some(Service::Vprintf),
            Some(Builtin::Malloc) => Some(Service::Malloc),
            Some(Builtin::Free) => Some(Service::Free),
            _ => None,
        };
        if let Some(service) = service {
            // Arguments and results where the caller has them, in its registers and frame.
            let mut op = Op::Call(Box::new(Call {
                target: CallTarget::Direct(service.target()),
                returns: call.returns.clone(),
                args: call.args.clone(),
            }));
            op.relocate(caller.registers, caller.frame);
            let guard = guard.map(|(reg, negated)| (reg + caller.registers, negated));
            self.push(Inst { guard, op }, source, caller.stack_top);
            return Ok(());
        }
        if callee.builtin.is_some() {
            return Err(format!("a call to `{}` (line {line})", callee.name));
        }
        if !callee.defined {
            return Err(format!(
                "a call to `{}`, declared but not defined (line {line})",
                callee.name
            ));
        }
        if self.active.contains(&(callee as *const FunctionCode)) {
            return Err(format!(
                "a recursive call to `{}` (line {line})",
                callee.name
            ));
        }
        // A guarded call: skip the whole inlined body when the guard fails.
        let skip = guard.map(|(reg, negated)| {
            let guard = Some((reg + caller.registers, !negated));
            self.push(
                Inst {
                    guard,
                    op: Op::Bra { target: 0 },
                },
                source,
                caller.stack_top,
            )
        });
        let frame = caller.stack_top.next_multiple_of(16);
        let stack_top = frame + callee.frame_size;
        if stack_top > MAX_STACK {
            return Err(format!(
                "a stack deeper than {MAX_STACK} bytes (line {line})"
            ));
        }
        self.extent = self.extent.max(stack_top);
        let instance = Instance {
            function: callee,
            registers: self.registers,
            frame,
            stack_top,
        };
        self.registers = self
            .registers
            .checked_add(callee.num_regs)
            .filter(|&n| n <= MAX_REGISTERS)
            .ok_or_else(|| format!("more than {MAX_REGISTERS} registers with calls inlined"))?;
        // The callee's frame starts zeroed.
        let mut at = 0;
        while at < callee.frame_size {
            let bytes = chunk(frame + at, frame + at, callee.frame_size - at);
            self.store(frame + at, bytes, Src::Imm(0), source, stack_top);
            at += bytes;
        }
        for (arg, param) in call.args.iter().zip(&callee.params) {
            match (*arg, *param) {
                (CallSlot::Frame(from), ParamSlot::Frame { offset, size }) => {
                    self.copy(caller.frame + from, frame + offset, size, source, stack_top)
                }
                (CallSlot::Value(value), ParamSlot::Frame { offset, size }) => {
                    let value = relocated(value, caller);
                    let bytes = size.min(8);
                    if !bytes.is_power_of_two() {
                        return Err(format!("a {size}-byte parameter (line {line})"));
                    }
                    self.store(frame + offset, bytes, value, source, stack_top);
                }
                (CallSlot::Value(value), ParamSlot::Reg { reg, bits }) if bits >= 8 => {
                    let op = Op::Mov {
                        d: reg + instance.registers,
                        a: relocated(value, caller),
                        bits: bits / 8 * 8,
                    };
                    self.push(Inst { guard: None, op }, source, stack_top);
                }
                _ => {
                    return Err(format!(
                        "an argument form the compiler does not pass (line {line})"
                    ))
                }
            }
        }
        let mut ret = Return {
            call,
            caller,
            exits: Vec::new(),
        };
        self.function(&instance, Some(&mut ret))?;
        let after = self.insts.len();
        for exit in ret.exits {
            self.set_target(exit, after);
        }
        if let Some(skip) = skip {
            self.set_target(skip, after);
        }
        Ok(())
    }

    /// An indirect call `call` through `target` (a virtual function, a function pointer): for
    /// each function it may reach, a test of the address and that function inlined; an
    /// address none of them has keeps the call, which compiled code leaves to the interpreter
    /// (`codegen/operation.rs`): it runs the block again, making the call or reporting the bad
    /// address. The functions it may reach are the defined ones that take and return as many
    /// values as the call passes, are not being inlined already (recursion) and inline.
    fn dispatch(
        &mut self,
        caller: &Instance<'a>,
        guard: Option<(u32, bool)>,
        call: &Call,
        target: Src,
        source: &chevron_ptx::ir::Instruction,
    ) -> Result<(), String> {
        let line = source.span.line;
        let fits = |f: &FunctionCode| {
            f.defined
                && f.builtin.is_none()
                && !f.is_kernel
                && f.params.len() == call.args.len()
                && f.returns.len() == call.returns.len()
        };
        let candidates: Vec<usize> = (0..self.functions.len())
            .filter(|&i| fits(&self.functions[i]))
            .filter(|&i| {
                !self
                    .active
                    .contains(&(&self.functions[i] as *const FunctionCode))
            })
            .collect();
        if candidates.len() > MAX_CANDIDATES {
            return Err(format!(
                "an indirect call that may reach more than {MAX_CANDIDATES} functions (line {line})"
            ));
        }
        let skip = guard.map(|(reg, negated)| {
            let guard = Some((reg + caller.registers, !negated));
            let op = Op::Bra { target: 0 };
            self.push(Inst { guard, op }, source, caller.stack_top)
        });
        let target = relocated(target, caller);
        let predicate = self.registers;
        self.registers += 1;
        if self.registers > MAX_REGISTERS {
            return Err(format!(
                "more than {MAX_REGISTERS} registers with calls inlined"
            ));
        }
        let mut ends = Vec::new();
        let mut first_failure = None;
        for index in candidates {
            let address = FUNCTION_WINDOW + 16 * index as u64;
            let saved = (
                self.insts.len(),
                self.registers,
                self.extent,
                self.active.len(),
            );
            let test = Op::Setp {
                cmp: Compare::Ne,
                ty: ScalarType::U64,
                ftz: false,
                combine: None,
                p: predicate,
                q: chevron_ptx::lowered::SINK,
                a: target,
                b: Src::Imm(address),
                c: Src::Imm(1),
                set_ty: None,
            };
            self.push(
                Inst {
                    guard: None,
                    op: test,
                },
                source,
                caller.stack_top,
            );
            let other = Op::Bra { target: 0 };
            let guard = Some((predicate, false));
            let next = self.push(Inst { guard, op: other }, source, caller.stack_top);
            let direct = Call {
                target: CallTarget::Direct(index as u32),
                returns: call.returns.clone(),
                args: call.args.clone(),
            };
            match self.call(caller, None, &direct, source) {
                Ok(()) => {
                    let end = Op::Bra { target: 0 };
                    ends.push(self.push(
                        Inst {
                            guard: None,
                            op: end,
                        },
                        source,
                        caller.stack_top,
                    ));
                    self.set_target(next, self.insts.len());
                }
                Err(why) => {
                    // Past the kernel's bounds: no function would fit after this one.
                    if self.insts.len() > MAX_INSTRUCTIONS || self.registers > MAX_REGISTERS {
                        return Err(why);
                    }
                    // This function stays the interpreter's to call.
                    first_failure.get_or_insert(why);
                    let (insts, registers, extent, active) = saved;
                    self.insts.truncate(insts);
                    self.source.truncate(insts);
                    self.stack_tops.truncate(insts);
                    (self.registers, self.extent) = (registers, extent);
                    self.active.truncate(active);
                }
            }
        }
        if ends.is_empty() {
            return Err(first_failure.unwrap_or_else(|| {
                format!("an indirect call no defined function fits (line {line})")
            }));
        }
        let mut op = Op::Call(Box::new(call.clone()));
        op.relocate(caller.registers, caller.frame);
        self.push(Inst { guard: None, op }, source, caller.stack_top);
        let after = self.insts.len();
        for at in ends.into_iter().chain(skip) {
            self.set_target(at, after);
        }
        Ok(())
    }

    /// A `ret` of `callee`: return values into the caller, then on after the call.
    fn return_values(
        &mut self,
        callee: &Instance<'a>,
        ret: &mut Return<'a, '_>,
        source: &chevron_ptx::ir::Instruction,
    ) -> Result<(), String> {
        let line = source.span.line;
        let caller = ret.caller;
        let top = callee.stack_top;
        for (dest, slot) in ret.call.returns.iter().zip(&callee.function.returns) {
            match (*slot, *dest) {
                (ParamSlot::Frame { offset, size }, CallSlot::Frame(to)) => {
                    self.copy(callee.frame + offset, caller.frame + to, size, source, top)
                }
                (ParamSlot::Frame { offset, size }, CallSlot::Value(Src::Reg(r))) => {
                    let bytes = size.min(8);
                    if !bytes.is_power_of_two() {
                        return Err(format!("a {size}-byte return value (line {line})"));
                    }
                    self.load(
                        callee.frame + offset,
                        bytes,
                        r + caller.registers,
                        source,
                        top,
                    );
                }
                (ParamSlot::Reg { reg, bits }, CallSlot::Frame(to)) => {
                    let bytes = u64::from(bits / 8).max(1);
                    if !bytes.is_power_of_two() || bytes > 8 {
                        return Err(format!("a {bits}-bit return register (line {line})"));
                    }
                    let value = Src::Reg(reg + callee.registers);
                    self.store(caller.frame + to, bytes, value, source, top);
                }
                (ParamSlot::Reg { reg, .. }, CallSlot::Value(Src::Reg(r))) => {
                    let op = Op::Mov {
                        d: r + caller.registers,
                        a: Src::Reg(reg + callee.registers),
                        bits: 64,
                    };
                    self.push(Inst { guard: None, op }, source, top);
                }
                (_, CallSlot::Value(_)) => {}
            }
        }
        let exit = self.push(
            Inst {
                guard: None,
                op: Op::Bra { target: 0 },
            },
            source,
            top,
        );
        ret.exits.push(exit);
        Ok(())
    }

    /// Copies `size` bytes of local memory from `from` to `to` through the scratch register.
    fn copy(
        &mut self,
        from: u64,
        to: u64,
        size: u64,
        source: &chevron_ptx::ir::Instruction,
        stack_top: u64,
    ) {
        let mut done = 0;
        while done < size {
            let bytes = chunk(from + done, to + done, size - done);
            let scratch = self.scratch;
            self.load(from + done, bytes, scratch, source, stack_top);
            self.store(to + done, bytes, Src::Reg(scratch), source, stack_top);
            done += bytes;
        }
    }

    fn load(
        &mut self,
        at: u64,
        bytes: u64,
        d: u32,
        source: &chevron_ptx::ir::Instruction,
        stack_top: u64,
    ) {
        let op = Op::Ld {
            space: Space::Local,
            bits: (bytes * 8) as u8,
            signed: false,
            ds: Box::new([d]),
            addr: frame_addr(at),
        };
        self.push(Inst { guard: None, op }, source, stack_top);
    }

    fn store(
        &mut self,
        at: u64,
        bytes: u64,
        value: Src,
        source: &chevron_ptx::ir::Instruction,
        stack_top: u64,
    ) {
        let op = Op::St {
            space: Space::Local,
            bits: (bytes * 8) as u8,
            addr: frame_addr(at),
            srcs: Box::new([value]),
        };
        self.push(Inst { guard: None, op }, source, stack_top);
    }
}

/// The largest access (8, 4, 2 or 1 bytes) that both addresses are aligned to and that fits.
fn chunk(from: u64, to: u64, left: u64) -> u64 {
    [8, 4, 2, 1]
        .into_iter()
        .find(|&n| from.is_multiple_of(n) && to.is_multiple_of(n) && n <= left)
        .unwrap_or(1)
}

fn frame_addr(at: u64) -> Addr {
    Addr {
        base: AddrBase::Frame,
        offset: at as i64,
    }
}

fn relocated(value: Src, instance: &Instance<'_>) -> Src {
    let mut value = value;
    value.relocate(instance.registers, instance.frame);
    value
}
