//! A kernel's resources as `cuFuncGetAttribute` reports them, read from its PTX:
//! `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`, `CONST_SIZE_BYTES` and `NUM_REGS`.
//!
//! chevron's devices run PTX without a register allocator, so these are the figures the PTX
//! itself determines, computed once when a function is first resolved:
//!
//! - **local bytes**: the `.local` variables (the frame, e.g. `__local_depot0`) of the kernel
//!   and of every function it can call, each aligned — an upper bound of the deepest call chain;
//! - **constant bytes**: the module's `.const` variables, which every kernel of the module sees;
//! - **registers**: 32-bit register slots the kernel declares (`.b64` counts two, `.b128` four,
//!   predicates none, a `.vN` declaration N times), plus the most any function it calls
//!   declares, at least 2; then lowered to the kernel's `.maxnreg`, and to what lets its largest
//!   block fit a 64 Ki-register file (`65536 / max threads per block`, a multiple of 8). The
//!   PTX's virtual registers are numbered without reuse, so the estimate grows with the code
//!   (a GPU's `ptxas` allocates fewer); it is stable for the same PTX.

use std::collections::{BTreeSet, HashMap};

use chevron_ptx::ir::{Function, FunctionDirective, Item, Module, StateSpace, Statement, Variable};
use chevron_ptx::symbols::{align_up, variable_size_align, CallGraph};

/// The registers of one multiprocessor's file that a block's threads share.
const REGISTER_FILE: u32 = 65536;
/// The most registers a thread may use (`ptxas`' limit).
const MAX_REGISTERS: u32 = 255;
/// The fewest registers reported.
const MIN_REGISTERS: u32 = 2;

/// What a kernel uses, as the driver reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelResources {
    /// `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`.
    pub local_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES`.
    pub const_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`.
    pub registers: u32,
}

impl KernelResources {
    /// The resources of kernel `name` of `module`, whose blocks may have up to `max_threads`
    /// threads; `None` if the module does not define it.
    pub fn of(module: &Module, name: &str, max_threads: u32) -> Option<KernelResources> {
        let functions: HashMap<&str, &Function> = module
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Function(f) if f.body.is_some() => Some((f.name.as_str(), f)),
                _ => None,
            })
            .collect();
        let kernel = *functions.get(name)?;
        let mut callees: BTreeSet<String> = CallGraph::from_module(module).reachable_from(name);
        callees.remove(name);
        let callees: Vec<&Function> = callees
            .iter()
            .filter_map(|callee| functions.get(callee.as_str()).copied())
            .collect();
        let local = callees.iter().fold(frame_bytes(kernel), |sum, f| {
            sum.saturating_add(frame_bytes(f))
        });
        let callee_registers = callees.iter().map(|f| register_slots(f)).max().unwrap_or(0);
        let estimate = register_slots(kernel)
            .saturating_add(callee_registers)
            .clamp(MIN_REGISTERS, MAX_REGISTERS);
        Some(KernelResources {
            local_bytes: local,
            const_bytes: const_bytes(module),
            registers: estimate.min(register_limit(kernel, max_threads)),
        })
    }
}

/// The most registers per thread that `.maxnreg` and the largest block allow.
fn register_limit(kernel: &Function, max_threads: u32) -> u32 {
    let by_block = (REGISTER_FILE / max_threads.max(1)) / 8 * 8;
    let by_directive = kernel
        .directives
        .iter()
        .filter_map(|directive| match directive {
            FunctionDirective::Performance { name, values } if name == "maxnreg" => {
                values.first().copied()
            }
            _ => None,
        })
        .min()
        .unwrap_or(MAX_REGISTERS);
    by_block.min(by_directive).max(MIN_REGISTERS)
}

/// Calls `visit` on every variable declared in `statements`, nested blocks included.
fn each_variable<'a>(statements: &'a [Statement], visit: &mut impl FnMut(&'a Variable)) {
    for statement in statements {
        match statement {
            Statement::Variable(variable) => visit(variable),
            Statement::Block(inner) => each_variable(inner, visit),
            _ => {}
        }
    }
}

/// The bytes of a function's `.local` declarations, each at its alignment.
fn frame_bytes(function: &Function) -> u32 {
    let mut bytes = 0u32;
    each_variable(function.body.as_deref().unwrap_or(&[]), &mut |variable| {
        if variable.space == StateSpace::Local {
            let (size, align) = variable_size_align(variable);
            bytes = align_up(bytes, align).saturating_add(u32::try_from(size).unwrap_or(u32::MAX));
        }
    });
    bytes
}

/// The 32-bit register slots a function's `.reg` declarations take (predicates none).
fn register_slots(function: &Function) -> u32 {
    let mut slots = 0u32;
    each_variable(function.body.as_deref().unwrap_or(&[]), &mut |variable| {
        if variable.space != StateSpace::Reg || variable.ty == chevron_ptx::ir::ScalarType::Pred {
            return;
        }
        let per_register = variable.ty.size().div_ceil(4) * u32::from(variable.vector.unwrap_or(1));
        let count = variable.range.unwrap_or(1);
        slots = slots.saturating_add(per_register.saturating_mul(count));
    });
    slots
}

/// The bytes of the module's `.const` variables, each at its alignment.
fn const_bytes(module: &Module) -> u32 {
    module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Variable(v) if v.space == StateSpace::Const => Some(variable_size_align(v)),
            _ => None,
        })
        .fold(0u32, |bytes, (size, align)| {
            align_up(bytes, align).saturating_add(u32::try_from(size).unwrap_or(u32::MAX))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.const .align 8 .b8 table[80];
.const .align 4 .u32 scale;
.func (.reg .b32 r) helper(.reg .b32 a)
{
    .local .align 4 .b8 scratch[16];
    .reg .b32 %r<5>;
    .reg .b64 %rd<2>;
    mov.u32 r, a;
    ret;
}
.entry kernel(.param .u64 out)
.maxnreg 40
{
    .local .align 8 .b8 __local_depot0[4000];
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .f64 %fd<30>;
    .reg .b32 t;
    call.uni (t), helper, (t);
    ret;
}
.entry plain()
{
    .reg .b32 %r<3>;
    ret;
}
"#;

    #[test]
    fn local_const_and_registers_come_from_the_ptx() {
        let module = chevron_ptx::parse(PTX).unwrap();
        let kernel = KernelResources::of(&module, "kernel", 1024).unwrap();
        assert_eq!(kernel.local_bytes, 4016);
        assert_eq!(kernel.const_bytes, 84);
        // 10 + 60 + 1 own slots and helper's 5 + 4 are above `.maxnreg 40`.
        assert_eq!(kernel.registers, 40);
        let plain = KernelResources::of(&module, "plain", 1024).unwrap();
        assert_eq!((plain.local_bytes, plain.registers), (0, 3));
        assert!(KernelResources::of(&module, "helper_missing", 1024).is_none());
    }

    #[test]
    fn registers_leave_room_for_the_largest_block() {
        let module = chevron_ptx::parse(PTX).unwrap();
        let kernel = KernelResources::of(&module, "kernel", 2048).unwrap();
        assert_eq!(kernel.registers, 32);
        let unbounded = KernelResources::of(&module, "kernel", 256).unwrap();
        assert_eq!(unbounded.registers, 40);
    }
}
