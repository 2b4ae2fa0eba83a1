//! The instrumentation pass: calls into a tool code object at kernel entry and exit, at
//! basic-block entry, and before global memory accesses.
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
//! before each `ret`/`exit` of the kernel's own body, `chevron_on_block` when it enters a basic
//! block of the kernel's body (numbered from 0 in text order, see
//! [`InstrumentedKernel::block_instructions`]), `chevron_on_access` before each `ld`/`st`/`atom`/
//! `red` in the `.global` space, with the address and `size_and_flags` = bytes
//! ([`ACCESS_SIZE_MASK`]) | [`ACCESS_STORE`] | [`ACCESS_ATOMIC`]. `block_linear` is
//! `ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)`. Device functions the kernel calls are
//! not rewritten. `launch` is the value the host passes in the extra last kernel parameter
//! [`LAUNCH_PARAM`] that every instrumented kernel gets; chevron passes a launch number, or the
//! address of a built-in tool's per-launch record.

use std::collections::HashSet;

use crate::ir::{
    AddressBase, Function, FunctionKind, Instruction, Item, KnownOpcode, Module, Operand, Param,
    ScalarType, StateSpace, Statement,
};

/// The name of the `.u64` parameter appended to every instrumented kernel.
pub const LAUNCH_PARAM: &str = "chevron_launch";
/// The bits of `size_and_flags` holding the access size in bytes.
pub const ACCESS_SIZE_MASK: u32 = 0xffff;
/// Set in `size_and_flags` for stores (and for the write of an atomic).
pub const ACCESS_STORE: u32 = 1 << 16;
/// Set in `size_and_flags` for atomics and reductions (read-modify-write).
pub const ACCESS_ATOMIC: u32 = 1 << 17;

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
    /// The number of original instructions of each basic block, by block id.
    pub block_instructions: Vec<u32>,
    /// The number of global memory accesses given a hook.
    pub accesses: u32,
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
}

/// Rewrites every kernel (`.entry` with a body) whose name `select` accepts, declares the tool
/// functions `hooks` call, and returns what was done, kernel by kernel. Kernels not selected
/// are left as they are.
pub fn instrument(
    module: &mut Module,
    select: impl Fn(&str) -> bool,
    hooks: Hooks,
) -> Result<Vec<InstrumentedKernel>, InstrumentError> {
    if module.address_size == 32 {
        return Err(InstrumentError::AddressSize);
    }
    let mut done = Vec::new();
    let mut selected: HashSet<String> = HashSet::new();
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
        function.params.push(launch_param());
        selected.insert(function.name.clone());
        if function.body.is_some() {
            done.push(rewrite_kernel(function, hooks));
        }
    }
    if !selected.is_empty() {
        let position = module
            .items
            .iter()
            .position(|item| matches!(item, Item::Function(_) | Item::Variable(_)))
            .unwrap_or(module.items.len());
        let declarations = hook_declarations(hooks);
        module.items.splice(position..position, declarations);
    }
    Ok(done)
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

/// Registers the inserted code uses; the names cannot clash with compiler-generated ones.
const LAUNCH: &str = "%chevron_launch";
const BLOCK: &str = "%chevron_block";
const TEMP: &str = "%chevron_t";
const ADDRESS: &str = "%chevron_address";

struct Rewriter {
    hooks: Hooks,
    block_instructions: Vec<u32>,
    accesses: u32,
    /// Whether the next instruction starts a basic block.
    at_leader: bool,
}

fn rewrite_kernel(function: &mut Function, hooks: Hooks) -> InstrumentedKernel {
    let body = function.body.take().unwrap_or_default();
    let mut rewriter = Rewriter {
        hooks,
        block_instructions: Vec::new(),
        accesses: 0,
        at_leader: true,
    };
    let declarations = body
        .iter()
        .take_while(|s| matches!(s, Statement::Variable(_) | Statement::Pragma(_)))
        .count();
    let mut statements: Vec<Statement> = body[..declarations].to_vec();
    statements.extend(parse_statements(&format!(
        ".reg .b64 {LAUNCH};\n.reg .b32 {BLOCK};\n.reg .b32 {TEMP}<3>;\n.reg .b64 {ADDRESS};\n\
         ld.param.u64 {LAUNCH}, [{LAUNCH_PARAM}];\n\
         mov.u32 {TEMP}0, %ctaid.z;\nmov.u32 {TEMP}1, %nctaid.y;\nmov.u32 {TEMP}2, %ctaid.y;\n\
         mad.lo.u32 {TEMP}0, {TEMP}0, {TEMP}1, {TEMP}2;\nmov.u32 {TEMP}1, %nctaid.x;\n\
         mov.u32 {TEMP}2, %ctaid.x;\nmad.lo.u32 {BLOCK}, {TEMP}0, {TEMP}1, {TEMP}2;"
    )));
    if hooks.entry_exit {
        statements.extend(call("chevron_on_entry", &[LAUNCH, BLOCK], None));
    }
    let rest = rewriter.rewrite(body[declarations..].to_vec());
    let falls_through = !rewriter.at_leader;
    statements.extend(rest);
    if falls_through && hooks.entry_exit {
        statements.extend(call("chevron_on_exit", &[LAUNCH, BLOCK], None));
    }
    function.body = Some(statements);
    InstrumentedKernel {
        name: function.name.clone(),
        block_instructions: rewriter.block_instructions,
        accesses: rewriter.accesses,
    }
}

impl Rewriter {
    fn rewrite(&mut self, statements: Vec<Statement>) -> Vec<Statement> {
        let mut out = Vec::with_capacity(statements.len());
        for statement in statements {
            match statement {
                Statement::Label(_) => {
                    self.at_leader = true;
                    out.push(statement);
                }
                Statement::Block(inner) => out.push(Statement::Block(self.rewrite(inner))),
                Statement::Instruction(inst) => self.instruction(inst, &mut out),
                other => out.push(other),
            }
        }
        out
    }

    fn instruction(&mut self, inst: Instruction, out: &mut Vec<Statement>) {
        if self.at_leader {
            let id = self.block_instructions.len();
            self.block_instructions.push(0);
            self.at_leader = false;
            if self.hooks.blocks {
                out.extend(call("chevron_on_block", &[LAUNCH, &id.to_string()], None));
            }
        }
        if let Some(last) = self.block_instructions.last_mut() {
            *last += 1;
        }
        let opcode = inst.opcode.known();
        if self.hooks.accesses {
            if let Some(access) = global_access(&inst) {
                self.accesses += 1;
                out.extend(access_call(&inst, access));
            }
        }
        let ends_thread = matches!(opcode, Some(KnownOpcode::Ret | KnownOpcode::Exit));
        if ends_thread && self.hooks.entry_exit {
            out.extend(call(
                "chevron_on_exit",
                &[LAUNCH, BLOCK],
                inst.guard.as_ref(),
            ));
        }
        if matches!(
            opcode,
            Some(KnownOpcode::Bra | KnownOpcode::Brx | KnownOpcode::Ret | KnownOpcode::Exit)
        ) {
            self.at_leader = true;
        }
        out.push(Statement::Instruction(inst));
    }
}

/// A global memory access: its address operand and `size_and_flags`.
struct Access<'a> {
    base: &'a AddressBase,
    offset: i64,
    size_and_flags: u32,
}

fn global_access(inst: &Instruction) -> Option<Access<'_>> {
    let flags = match inst.opcode.known()? {
        KnownOpcode::Ld | KnownOpcode::Ldu => 0,
        KnownOpcode::St => ACCESS_STORE,
        KnownOpcode::Atom | KnownOpcode::Red => ACCESS_STORE | ACCESS_ATOMIC,
        _ => return None,
    };
    if inst.space() != Some(StateSpace::Global) {
        return None;
    }
    let address = inst.operands.iter().find_map(|o| match o {
        Operand::Address(a) => Some(a),
        _ => None,
    })?;
    let element = inst.ty().map_or(4, ScalarType::size);
    let count = u32::from(inst.vector().unwrap_or(1));
    Some(Access {
        base: &address.base,
        offset: address.offset,
        size_and_flags: (element * count) & ACCESS_SIZE_MASK | flags,
    })
}

fn access_call(inst: &Instruction, access: Access<'_>) -> Vec<Statement> {
    let offset = access.offset;
    let compute = match access.base {
        AddressBase::Register(reg) if offset == 0 => format!("mov.b64 {ADDRESS}, {};", reg.name),
        AddressBase::Register(reg) => format!("add.s64 {ADDRESS}, {}, {offset};", reg.name),
        AddressBase::Symbol(name) if offset == 0 => format!("mov.u64 {ADDRESS}, {name};"),
        AddressBase::Symbol(name) => format!("mov.u64 {ADDRESS}, {name}+{offset};"),
        AddressBase::Absolute => format!("mov.u64 {ADDRESS}, {offset};"),
    };
    let mut statements = parse_statements(&compute);
    let size = access.size_and_flags.to_string();
    statements.extend(call(
        "chevron_on_access",
        &[LAUNCH, ADDRESS, &size],
        inst.guard.as_ref(),
    ));
    statements
}

/// `{ .param …; st.param …; [@guard] call hook, (…); }` for `args` (registers or immediates; the
/// `launch` and `address` arguments are 64-bit, the last one 32-bit).
fn call(hook: &str, args: &[&str], guard: Option<&crate::ir::Guard>) -> Vec<Statement> {
    let mut text = String::from("{\n");
    let mut names = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let bits = if i + 1 == args.len() { 32 } else { 64 };
        let name = format!("chevron_param{i}");
        text.push_str(&format!(
            ".param .b{bits} {name};\nst.param.b{bits} [{name}], {arg};\n"
        ));
        names.push(name);
    }
    let (prefix, uni) = match guard {
        Some(g) => (
            format!("@{}{} ", if g.negated { "!" } else { "" }, g.register),
            "",
        ),
        None => (String::new(), ".uni"),
    };
    text.push_str(&format!(
        "{prefix}call{uni} {hook}, ({});\n}}",
        names.join(", ")
    ));
    parse_statements(&text)
}

/// Parses module-scope items of generated text.
fn parse_items(text: &str) -> Vec<Item> {
    let source = format!(".version 7.0\n.target sm_70\n.address_size 64\n{text}");
    crate::parse(&source)
        .expect("the pass generates valid PTX")
        .items
}

/// Parses statements of generated text (placed in a function body; the guard register and the
/// kernel's own names need no declaration to parse).
fn parse_statements(text: &str) -> Vec<Statement> {
    let items = parse_items(&format!(".func chevron_snippet()\n{{\n{text}\n}}"));
    match items.into_iter().next() {
        Some(Item::Function(Function {
            body: Some(body), ..
        })) => body,
        _ => unreachable!("the snippet is one function with a body"),
    }
}
