//! The instrumentation pass: calls into a tool code object at kernel entry and exit, at
//! basic-block entry, and before memory accesses, in the selected kernels and in the device
//! functions they call.
//!
//! # The tool ABI
//!
//! A tool is a PTX module defining (`.visible .func`) the hooks it is linked for:
//!
//! ```text
//! .visible .func chevron_on_entry(.param .b64 launch, .param .b32 block_linear)
//! .visible .func chevron_on_exit(.param .b64 launch, .param .b32 block_linear)
//! .visible .func chevron_on_block(.param .b64 launch, .param .b32 block_id)
//! .visible .func chevron_on_access(.param .b64 launch, .param .b64 address, .param .b32 size_and_flags)
//! ```
//!
//! Every thread calls the hooks: `chevron_on_entry` once when it starts, `chevron_on_exit`
//! before each `ret` of the kernel's own body and each `exit` anywhere (or when it falls off
//! the end of the body), `chevron_on_block` when it enters a basic block (kernel blocks are
//! numbered from 0 in text order, see [`InstrumentedKernel::block_instructions`]),
//! `chevron_on_access` before each memory access covered (below), with the address and
//! `size_and_flags` = bytes ([`ACCESS_SIZE_MASK`]) | [`ACCESS_STORE`] | [`ACCESS_ATOMIC`] |
//! [`ACCESS_GENERIC`]. `block_linear` is `ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)`.
//! `launch` is the value the host passes in the extra last kernel parameter [`LAUNCH_PARAM`]
//! that every instrumented kernel gets; chevron passes a launch number, or the address of a
//! built-in tool's per-launch record.
//!
//! # What is covered
//!
//! - **Device functions**: every `.func` with a body in the same module that a selected kernel
//!   reaches through direct `call`s (transitively) runs as an instrumented copy (see
//!   the `callees` module); its basic blocks get ids after those of every kernel (the same ids for all
//!   kernels), and its accesses and `exit`s get hooks. Such kernels use 8 more bytes of static
//!   shared memory ([`LAUNCH_SHARED`]). Not covered: indirect calls (`call` through a
//!   register: the original, uninstrumented function runs), functions only declared in the
//!   module (`.extern`, defined in another code object), and the tool's own functions.
//! - **Memory accesses**: `ld`, `ldu`, `st`, `atom` and `red` in the `.global` space, and in
//!   the generic space (no state space) through a register, flagged [`ACCESS_GENERIC`]: the
//!   address may then be global, shared or local memory, and a tool tells them apart with
//!   `isspacep` (the built-in `memory` tool counts the global ones). Vector accesses are one
//!   access of the vector's size. Not covered: generic accesses through a symbol, other state
//!   spaces (`.shared`, `.local`, `.const`, `.param`), `cp.async` and bulk copies, texture
//!   and surface instructions, `prefetch`, `multimem`, and accesses made by the tool itself.
//!
//! Inserted instructions carry the source position of the original instruction they were
//! inserted for, so a fault in an instrumented kernel reports the original PTX line (see
//! [`LineMap`] for the lines of the printed, rewritten text).

mod callees;
mod line_map;
mod rewrite;

use std::collections::{BTreeSet, HashMap};

pub use line_map::LineMap;

use crate::ir::{FunctionKind, Item, Module, Param, ScalarType, StateSpace};
use crate::symbols::{buffer_size, layout_params};
pub use callees::LAUNCH_SHARED;

use callees::{hooked_copy, CallGraph, Hidden};
use rewrite::{parse_items, rewrite_body, Body};

/// The name of the `.u64` parameter appended to every instrumented kernel.
pub const LAUNCH_PARAM: &str = "chevron_launch";
/// The bits of `size_and_flags` holding the access size in bytes.
pub const ACCESS_SIZE_MASK: u32 = 0xffff;
/// Set in `size_and_flags` for stores (and for the write of an atomic).
pub const ACCESS_STORE: u32 = 1 << 16;
/// Set in `size_and_flags` for atomics and reductions (read-modify-write).
pub const ACCESS_ATOMIC: u32 = 1 << 17;
/// Set in `size_and_flags` for accesses through a generic address (global, shared or local).
pub const ACCESS_GENERIC: u32 = 1 << 18;

/// Which hooks the pass inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hooks {
    /// `chevron_on_entry` and `chevron_on_exit`.
    pub entry_exit: bool,
    /// `chevron_on_block`.
    pub blocks: bool,
    /// `chevron_on_access`.
    pub accesses: bool,
}

impl Hooks {
    /// The names of the tool functions these hooks call.
    pub fn function_names(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if self.entry_exit {
            names.extend(["chevron_on_entry", "chevron_on_exit"]);
        }
        if self.blocks {
            names.push("chevron_on_block");
        }
        if self.accesses {
            names.push("chevron_on_access");
        }
        names
    }
}

/// What the pass did to one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrumentedKernel {
    /// The kernel's symbol name.
    pub name: String,
    /// The number of original instructions of each basic block, by block id: the kernel's
    /// own blocks from 0, then (when it reaches device functions) zeros up to the first id of
    /// the device functions' blocks, then theirs (of every instrumented device function; those
    /// it does not reach never run).
    pub block_instructions: Vec<u32>,
    /// The number of memory accesses given a hook, in the kernel and the device functions it
    /// reaches.
    pub accesses: u32,
    /// The device functions the kernel reaches, which run as instrumented copies.
    pub device_functions: Vec<String>,
}

/// Why a module could not be instrumented.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    /// The module is 32-bit; the hooks take 64-bit addresses.
    #[error("cannot instrument a module with .address_size 32: the hooks take 64-bit addresses")]
    AddressSize,
    /// A selected kernel already has a parameter named [`LAUNCH_PARAM`].
    #[error("kernel `{0}` is already instrumented (it has a parameter `{LAUNCH_PARAM}`)")]
    AlreadyInstrumented(String),
    /// The hidden parameter takes a selected kernel beyond the parameter space limit.
    #[error(
        "kernel `{kernel}` cannot be instrumented: its parameters take {declared} bytes, and \
         instrumentation adds a hidden 8-byte parameter (`{LAUNCH_PARAM}`, 8-aligned: {added} \
         bytes more), {total} bytes in all, beyond the {MAX_PARAM_BYTES}-byte limit of kernel \
         parameters; leave this kernel uninstrumented or pass fewer parameter bytes"
    )]
    ParamSpace {
        /// The kernel.
        kernel: String,
        /// Its declared parameter bytes.
        declared: u32,
        /// The bytes the hidden parameter adds (with alignment padding).
        added: u32,
        /// The bytes with the hidden parameter.
        total: u32,
    },
}

/// The kernel parameter space a GPU allows (sm_70 and later, CUDA 12.1+).
const MAX_PARAM_BYTES: u32 = 32_764;

/// Rewrites every kernel (`.entry` with a body) whose name `select` accepts, and copies of the
/// device functions they reach, declares the tool functions `hooks` call, and returns what was
/// done, kernel by kernel. Kernels not selected are left as they are (and keep calling the
/// original device functions).
pub fn instrument(
    module: &mut Module,
    select: impl Fn(&str) -> bool,
    hooks: Hooks,
) -> Result<Vec<InstrumentedKernel>, InstrumentError> {
    if module.address_size == 32 {
        return Err(InstrumentError::AddressSize);
    }
    // Before the launch parameter is added: the names are chosen among the program's own.
    let hidden = Hidden::for_module(module);
    let mut selected: Vec<String> = Vec::new();
    for item in &mut module.items {
        let Item::Function(function) = item else {
            continue;
        };
        if function.kind != FunctionKind::Entry || !select(&function.name) {
            continue;
        }
        if function.params.iter().any(|p| p.name == LAUNCH_PARAM) {
            return Err(InstrumentError::AlreadyInstrumented(function.name.clone()));
        }
        let declared = buffer_size(&layout_params(&function.params));
        function.params.push(launch_param());
        let total = buffer_size(&layout_params(&function.params));
        if total > MAX_PARAM_BYTES && declared <= MAX_PARAM_BYTES {
            return Err(InstrumentError::ParamSpace {
                kernel: function.name.clone(),
                declared,
                added: total - declared,
                total,
            });
        }
        selected.push(function.name.clone());
    }
    if selected.is_empty() {
        return Ok(Vec::new());
    }
    let graph = CallGraph::new(module);
    let hooked = graph.reached_from(selected.iter().map(String::as_str));
    let mut done = Vec::new();
    for item in &mut module.items {
        let Item::Function(function) = item else {
            continue;
        };
        if function.kind != FunctionKind::Entry
            || function.body.is_none()
            || !selected.contains(&function.name)
        {
            continue;
        }
        let reached: Vec<String> = graph
            .reached_from([function.name.as_str()])
            .into_iter()
            .collect();
        let kind = Body::Kernel {
            publish: !reached.is_empty(),
        };
        let rewritten = rewrite_body(function, hooks, kind, 0, &hooked, &hidden);
        done.push(InstrumentedKernel {
            name: function.name.clone(),
            block_instructions: rewritten.block_instructions,
            accesses: rewritten.accesses,
            device_functions: reached,
        });
    }
    let first_block = done
        .iter()
        .map(|k| k.block_instructions.len())
        .max()
        .unwrap_or(0);
    let copies = add_copies(module, hooks, &hooked, first_block, &hidden);
    for kernel in done.iter_mut().filter(|k| !k.device_functions.is_empty()) {
        kernel.block_instructions.resize(first_block, 0);
        kernel.block_instructions.extend(&copies.block_instructions);
        kernel.accesses += kernel
            .device_functions
            .iter()
            .filter_map(|name| copies.accesses.get(name))
            .sum::<u32>();
    }
    let position = module
        .items
        .iter()
        .position(|item| matches!(item, Item::Function(_) | Item::Variable(_)))
        .unwrap_or(module.items.len());
    let mut declarations = hook_declarations(hooks);
    if !hooked.is_empty() {
        declarations.extend(parse_items(&format!(
            ".shared .align 8 .b64 {};",
            hidden.launch_shared()
        )));
        declarations.extend(copies.declarations);
    }
    module.items.splice(position..position, declarations);
    Ok(done)
}

/// The instrumented copies of device functions.
struct Copies {
    /// Forward declarations of the copies.
    declarations: Vec<Item>,
    /// Original instructions per basic block of all copies, ids from the first block given.
    block_instructions: Vec<u32>,
    /// Memory accesses given a hook, per original function.
    accesses: HashMap<String, u32>,
}

/// Inserts an instrumented copy after each device function of `hooked`, numbering their basic
/// blocks from `first_block`.
fn add_copies(
    module: &mut Module,
    hooks: Hooks,
    hooked: &BTreeSet<String>,
    first_block: usize,
    hidden: &Hidden,
) -> Copies {
    let mut copies = Copies {
        declarations: Vec::new(),
        block_instructions: Vec::new(),
        accesses: HashMap::new(),
    };
    if hooked.is_empty() {
        return copies;
    }
    let mut items = Vec::with_capacity(module.items.len() + hooked.len());
    for item in std::mem::take(&mut module.items) {
        let copy = match &item {
            Item::Function(f)
                if f.kind == FunctionKind::Func && f.body.is_some() && hooked.contains(&f.name) =>
            {
                let mut copy = hooked_copy(f, false, hidden);
                let first = first_block + copies.block_instructions.len();
                let body = Body::DeviceFunction;
                let rewritten = rewrite_body(&mut copy, hooks, body, first, hooked, hidden);
                copies
                    .block_instructions
                    .extend(rewritten.block_instructions);
                copies.accesses.insert(f.name.clone(), rewritten.accesses);
                copies
                    .declarations
                    .push(Item::Function(hooked_copy(f, true, hidden)));
                Some(Item::Function(copy))
            }
            _ => None,
        };
        items.push(item);
        items.extend(copy);
    }
    module.items = items;
    copies
}

fn launch_param() -> Param {
    Param {
        space: StateSpace::Param,
        align: None,
        ty: ScalarType::U64,
        vector: None,
        array: Vec::new(),
        ptr: None,
        name: LAUNCH_PARAM.to_string(),
    }
}

/// `.extern .func` declarations of the hooks, parsed from their ABI text.
fn hook_declarations(hooks: Hooks) -> Vec<Item> {
    let mut text = String::new();
    for name in hooks.function_names() {
        let params = if name == "chevron_on_access" {
            "(.param .b64 launch, .param .b64 address, .param .b32 size_and_flags)"
        } else {
            "(.param .b64 launch, .param .b32 id)"
        };
        text.push_str(&format!(".extern .func {name}{params};\n"));
    }
    parse_items(&text)
}
