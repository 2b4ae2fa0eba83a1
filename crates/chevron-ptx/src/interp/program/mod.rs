//! A loaded module: every function decoded once into the executable form of `inst`,
//! module-scope variables allocated and initialised in device memory, the shared-memory layout
//! fixed. A [`Program`] is immutable after loading and shared by all threads running its kernels.

mod decode;
mod decode_ops;
mod layout;
pub mod limits;
mod scope;
mod shared;

use std::collections::HashMap;
use std::sync::Arc;

use super::fault::LoadError;
use super::inst::{Builtin, Inst};
use super::memory::{DeviceMemory, FUNCTION_WINDOW};
use super::source::{SourceFrame, SourceMap};
use crate::ir::{self, FunctionKind, Immediate, Item, ScalarType, StateSpace, Statement};
use scope::Binding;

pub(crate) use crate::printer::print_instruction as instruction_text;
pub(crate) use decode_ops::{space_of, Decoder};

/// Where a `.func` parameter or return value lives in the callee.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamSlot {
    /// A `.param` variable of the callee's frame.
    Frame { offset: u64, size: u64 },
    /// A `.reg` parameter.
    Reg { reg: u32, bits: u8 },
}

/// One decoded function (not a stable interface).
#[allow(missing_docs)]
#[derive(Debug)]
pub struct FunctionCode {
    pub name: String,
    pub is_kernel: bool,
    pub insts: Vec<Inst>,
    /// The IR instruction each decoded instruction came from (for fault messages).
    pub source: Vec<ir::Instruction>,
    pub num_regs: u32,
    /// Bytes of frame (local variables, `.param` variables, parameters).
    pub frame_size: u64,
    pub params: Vec<ParamSlot>,
    pub returns: Vec<ParamSlot>,
    /// Kernel parameters: (offset, size) in the parameter buffer.
    pub kernel_params: Vec<(u64, u64)>,
    pub param_size: u64,
    pub defined: bool,
    pub builtin: Option<Builtin>,
    /// Hidden register holding the carry flag of `add.cc` and friends.
    pub carry_reg: u32,
    /// Whether the function synchronises the grid (reads the workspace of cooperative launches).
    pub grid_sync: bool,
    /// The cluster a kernel requires (`.reqnctapercluster`, CUDA's `__cluster_dims__`).
    pub cluster_dims: Option<[u32; 3]>,
    /// `.explicitcluster` (or `.reqnctapercluster`): the kernel runs in clusters.
    pub explicit_cluster: bool,
}

impl FunctionCode {
    /// The first instruction the CPU device cannot execute, as (index, reason).
    pub fn first_unsupported(&self) -> Option<(usize, &str)> {
        self.insts
            .iter()
            .enumerate()
            .find_map(|(pc, inst)| match &inst.op {
                super::inst::Op::Unsupported(why) => Some((pc, why.as_str())),
                _ => None,
            })
    }

    /// Functions this one calls directly.
    pub fn direct_callees(&self) -> impl Iterator<Item = u32> + '_ {
        self.insts.iter().filter_map(|inst| match &inst.op {
            super::inst::Op::Call(call) => match call.target {
                super::inst::CallTarget::Direct(index) => Some(index),
                _ => None,
            },
            _ => None,
        })
    }

    /// PTX line of instruction `pc`.
    pub fn line(&self, pc: usize) -> u32 {
        self.source.get(pc).map(|i| i.span.line).unwrap_or(0)
    }
}

impl Program {
    /// The decoded code of `kernel` and of every function, for the CPU device's compiler
    /// (not a stable interface).
    #[doc(hidden)]
    pub fn decoded(&self, kernel: &KernelHandle) -> Option<(&FunctionCode, &[FunctionCode])> {
        let code = self.functions.get(kernel.index as usize)?;
        Some((code, &self.functions))
    }

    /// The source frames of instruction `pc` of function `function`, innermost first (empty
    /// when the module has no line information there).
    pub fn source_frames(&self, function: u32, pc: usize) -> &[SourceFrame] {
        self.source.frames(function, pc)
    }

    /// Whether the module carries line information (`.loc`, from `-lineinfo` or `-G`).
    pub fn has_line_info(&self) -> bool {
        self.source.has_lines()
    }

    /// Bytes of static shared memory of the module's largest kernel.
    pub fn static_shared(&self) -> u64 {
        self.static_shared
    }

    /// Bytes of static shared memory of a block of `kernel`: the `.shared` variables it and the
    /// functions it calls name, laid out; its dynamic shared memory starts at this offset, and an
    /// access past static plus dynamic faults.
    pub fn kernel_static_shared(&self, kernel: &KernelHandle) -> u64 {
        self.block_static_shared
            .get(kernel.index as usize)
            .copied()
            .unwrap_or(self.static_shared)
    }
}

/// A kernel resolved by name: its index and parameter layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelHandle {
    pub(crate) index: u32,
    /// The kernel's name.
    pub name: String,
    /// Each parameter's (offset, size) in the parameter buffer, as the CUDA driver lays it out.
    pub params: Vec<(u64, u64)>,
    /// Total size of the parameter buffer.
    pub param_size: u64,
}

/// A loaded module. `Send + Sync`: launch its kernels from any thread.
#[derive(Debug)]
pub struct Program {
    pub(crate) functions: Vec<FunctionCode>,
    by_name: HashMap<String, u32>,
    globals: HashMap<String, (u64, u64)>,
    pub(crate) memory: Arc<DeviceMemory>,
    /// Bytes of static shared memory of the largest kernel.
    pub(crate) static_shared: u64,
    /// Per function: the static shared memory of a block running it (kernels: what the kernel
    /// and its callees name, exactly); its dynamic shared memory starts at this offset.
    pub(crate) block_static_shared: Vec<u64>,
    /// Registers per function frame in a warp's register file (the largest function's count).
    pub(crate) max_regs: u32,
    /// Source positions of every instruction (`.loc`), for reports.
    pub(crate) source: SourceMap,
}

/// The bit pattern of an immediate for an operand of type `ty`.
pub(crate) fn immediate_bits(imm: Immediate, ty: ScalarType) -> u64 {
    match (imm, ty) {
        (Immediate::Int(i), ScalarType::F32) => u64::from((i as f32).to_bits()),
        (Immediate::Int(i), ScalarType::F64) => (i as f64).to_bits(),
        (Immediate::F64(b), ScalarType::F32) => u64::from((f64::from_bits(b) as f32).to_bits()),
        (Immediate::F32(b), ScalarType::F64) => f64::from(f32::from_bits(b)).to_bits(),
        (Immediate::Int(i), _) => i as u64,
        (Immediate::F32(b), _) => u64::from(b),
        (Immediate::F64(b), _) => b,
    }
}

/// Opcodes rejected at load time because the CPU device cannot run them.
const UNSUPPORTED_OPCODES: &[&str] = &["tcgen05", "tensormap", "clusterlaunchcontrol"];

impl Program {
    /// Decodes `module` and allocates and initialises its module-scope `.global` and `.const`
    /// variables in `memory`. Fails, naming the function and PTX line, on anything the CPU device
    /// cannot execute (e.g. `tcgen05`: "not supported on the CPU device").
    pub fn load(module: &ir::Module, memory: &Arc<DeviceMemory>) -> Result<Program, LoadError> {
        let mut names: HashMap<String, Binding> = HashMap::new();
        let mut functions: Vec<&ir::Function> = Vec::new();
        let mut by_name: HashMap<String, u32> = HashMap::new();
        for item in &module.items {
            if let Item::Function(f) = item {
                match by_name.get(&f.name) {
                    Some(&i) => {
                        if f.body.is_some() {
                            functions[i as usize] = f;
                        }
                    }
                    None => {
                        by_name.insert(f.name.clone(), functions.len() as u32);
                        names.insert(f.name.clone(), Binding::Function(functions.len() as u32));
                        functions.push(f);
                    }
                }
            }
        }
        for item in &module.items {
            if let Item::Alias { alias, aliasee } = item {
                if let Some(&i) = by_name.get(aliasee) {
                    by_name.insert(alias.clone(), i);
                    names.insert(alias.clone(), Binding::Function(i));
                }
            }
        }

        let shared = decode::SharedLayout::new(module, &functions);
        let mut globals = HashMap::new();
        let mut pending_init = Vec::new();
        for item in &module.items {
            let Item::Variable(var) = item else { continue };
            match var.space {
                StateSpace::Global | StateSpace::Const => {
                    let size = layout::variable_size(var);
                    let size = if size == 0 { 1 } else { size };
                    let addr = memory
                        .alloc(size, layout::variable_align(var))
                        .map_err(|e| {
                            LoadError::new(None, var.span.line, format!("`{}`: {e}", var.name))
                        })?;
                    // Module variables start initialised (to zero without an initializer).
                    let _ = memory.mark_defined(addr, size);
                    globals.insert(var.name.clone(), (addr, layout::variable_size(var)));
                    names.insert(var.name.clone(), Binding::Global(addr));
                    if var.init.is_some() {
                        pending_init.push((var, addr));
                    }
                }
                StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster => {
                    names.insert(
                        var.name.clone(),
                        Binding::Shared(shared.offset_of(None, var)),
                    );
                }
                _ => {}
            }
        }
        for (var, addr) in pending_init {
            let Some(init) = &var.init else { continue };
            let mut bytes = Vec::new();
            let resolve = |symbol: &str, generic: bool| match names.get(symbol) {
                Some(Binding::Global(a)) => Some(*a),
                Some(Binding::Function(i)) => Some(FUNCTION_WINDOW + 16 * u64::from(*i)),
                Some(Binding::Shared(o)) => Some(if generic {
                    super::memory::SHARED_WINDOW + o
                } else {
                    *o
                }),
                _ => None,
            };
            layout::initializer_bytes(init, var.ty, &mut bytes, &resolve)
                .map_err(|e| LoadError::new(None, var.span.line, e))?;
            memory.write(addr, &bytes).map_err(|e| {
                LoadError::new(
                    None,
                    var.span.line,
                    format!("initialising `{}`: {e}", var.name),
                )
            })?;
        }

        let mut decoded = Vec::with_capacity(functions.len());
        for (index, function) in functions.iter().enumerate() {
            decoded.push(decode::decode_function(function, index, &names, &shared)?);
        }
        let max_regs = decoded.iter().map(|f| f.num_regs).max().unwrap_or(0).max(1);
        let source = SourceMap::new(module, &functions);
        Ok(Program {
            functions: decoded,
            by_name,
            globals,
            memory: Arc::clone(memory),
            static_shared: shared.static_size,
            block_static_shared: shared.block_static_sizes(),
            max_regs,
            source,
        })
    }

    /// Bytes of device memory the module-scope `.global` and `.const` variables of `module` take
    /// once loaded (each at least one byte), so that a device can check them against its
    /// capacity before [`Program::load`] allocates anything.
    pub fn global_bytes(module: &ir::Module) -> u64 {
        module
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Variable(var)
                    if matches!(var.space, StateSpace::Global | StateSpace::Const) =>
                {
                    Some(layout::variable_size(var).max(1))
                }
                _ => None,
            })
            .fold(0u64, u64::saturating_add)
    }

    /// The device address and size of a module-scope `.global` or `.const` variable (like
    /// `cuModuleGetGlobal`).
    pub fn global_address(&self, name: &str) -> Option<(u64, u64)> {
        self.globals.get(name).copied()
    }

    /// Resolves a kernel (`.entry`) by name.
    pub fn kernel(&self, name: &str) -> Option<KernelHandle> {
        let index = *self.by_name.get(name)?;
        let function = &self.functions[index as usize];
        if !function.is_kernel || !function.defined {
            return None;
        }
        Some(KernelHandle {
            index,
            name: function.name.clone(),
            params: function.kernel_params.clone(),
            param_size: function.param_size,
        })
    }

    /// Names of all kernels defined in the module, in source order.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.functions
            .iter()
            .filter(|f| f.is_kernel && f.defined)
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The first of `kernel` and the functions it reaches through direct calls for which
    /// `found` gives an answer, as (function index, answer).
    pub(crate) fn find_reachable<T>(
        &self,
        kernel: u32,
        mut found: impl FnMut(&FunctionCode) -> Option<T>,
    ) -> Option<(u32, T)> {
        let mut seen = vec![false; self.functions.len()];
        let mut stack = vec![kernel];
        while let Some(index) = stack.pop() {
            if std::mem::replace(&mut seen[index as usize], true) {
                continue;
            }
            let function = &self.functions[index as usize];
            if let Some(answer) = found(function) {
                return Some((index, answer));
            }
            stack.extend(
                function
                    .direct_callees()
                    .filter(|&c| (c as usize) < seen.len()),
            );
        }
        None
    }

    /// The first instruction the kernel can reach (through direct calls) that the CPU device
    /// cannot execute, as (function index, instruction index, reason).
    pub(crate) fn unsupported_in(&self, kernel: u32) -> Option<(u32, usize, String)> {
        self.find_reachable(kernel, |function| {
            function
                .first_unsupported()
                .map(|(pc, why)| (pc, why.to_string()))
        })
        .map(|(index, (pc, why))| (index, pc, why))
    }

    /// Whether the kernel (or a function it calls directly) synchronises the whole grid, so that
    /// its blocks must all be resident at once.
    pub(crate) fn needs_grid_sync(&self, kernel: u32) -> bool {
        self.find_reachable(kernel, |function| function.grid_sync.then_some(()))
            .is_some()
    }

    /// The device memory the program's variables live in.
    pub fn memory(&self) -> &Arc<DeviceMemory> {
        &self.memory
    }
}

impl Drop for Program {
    /// Frees the module's variables: once no launch holds the program, nothing can name them.
    fn drop(&mut self) {
        for &(addr, _) in self.globals.values() {
            // Each address was allocated by `load` and is freed once, here.
            let _ = self.memory.free(addr);
        }
    }
}

/// Whether a statement list contains an instruction the CPU device rejects at load.
pub(crate) fn unsupported_opcode(inst: &ir::Instruction) -> Option<&'static str> {
    let word = inst.opcode.as_str();
    if let Some(bad) = UNSUPPORTED_OPCODES.iter().find(|w| word.starts_with(*w)) {
        return Some(bad);
    }
    // Reductions into memory by bulk copies; plain and tensor bulk copies run.
    let is_reduce = word == "cp" && inst.modifiers.iter().any(|m| m.to_word() == "reduce");
    is_reduce.then_some("cp.reduce.async.bulk")
}

/// Walks a body, nested blocks included.
pub(crate) fn walk<'a>(body: &'a [Statement], visit: &mut dyn FnMut(&'a Statement)) {
    for statement in body {
        visit(statement);
        if let Statement::Block(inner) = statement {
            walk(inner, visit);
        }
    }
}

/// Whether a function is a kernel.
pub(crate) fn is_kernel(function: &ir::Function) -> bool {
    function.kind == FunctionKind::Entry
}
