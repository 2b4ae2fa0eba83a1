//! Rewriting one function body: the prologue that sets up `launch` and `block_linear`, hook
//! calls at basic-block entry, before memory accesses and before the thread ends, and calls of
//! reached device functions redirected to their instrumented copies.
//!
//! Every inserted instruction carries the source position of the original instruction it was
//! inserted for (the prologue: of the body's first instruction), so positions in the rewritten
//! module are those of the original PTX.

use std::collections::BTreeSet;

use super::callees::{call_target, Hidden};
use super::{Hooks, ACCESS_ATOMIC, ACCESS_GENERIC, ACCESS_SIZE_MASK, ACCESS_STORE, LAUNCH_PARAM};
use crate::ir::{
    AddressBase, Function, Instruction, Item, KnownOpcode, Operand, ScalarType, Span, StateSpace,
    Statement,
};

/// The registers the inserted code uses, named by [`Hidden`] (no name of the module clashes).
struct Registers {
    launch: String,
    block: String,
    temp: String,
    address: String,
}

impl Registers {
    fn new(hidden: &Hidden) -> Registers {
        Registers {
            launch: hidden.register("launch"),
            block: hidden.register("block"),
            temp: hidden.register("t"),
            address: hidden.register("address"),
        }
    }
}

/// What kind of function body is rewritten.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Body {
    /// A kernel: `launch` comes from its parameter; `publish` stores it for the device
    /// functions it reaches.
    Kernel { publish: bool },
    /// The copy of a device function: `launch` comes from the `.shared` variable.
    DeviceFunction,
}

/// What rewriting one body found.
pub(super) struct Rewritten {
    /// Original instructions per basic block, in text order.
    pub block_instructions: Vec<u32>,
    /// Memory accesses given a hook.
    pub accesses: u32,
}

struct Rewriter<'a> {
    hooks: Hooks,
    /// The id of this body's first basic block.
    first_block: usize,
    block_instructions: Vec<u32>,
    accesses: u32,
    /// Whether the next instruction starts a basic block.
    at_leader: bool,
    /// Device functions whose calls go to their instrumented copies.
    hooked: &'a BTreeSet<String>,
    kind: Body,
    hidden: &'a Hidden,
    registers: Registers,
}

/// Rewrites `function`'s body as `kind`, numbering its basic blocks from `first_block`.
pub(super) fn rewrite_body(
    function: &mut Function,
    hooks: Hooks,
    kind: Body,
    first_block: usize,
    hooked: &BTreeSet<String>,
    hidden: &Hidden,
) -> Rewritten {
    let body = function.body.take().unwrap_or_default();
    let registers = Registers::new(hidden);
    let (launch, block) = (registers.launch.clone(), registers.block.clone());
    let mut rewriter = Rewriter {
        hooks,
        first_block,
        block_instructions: Vec::new(),
        accesses: 0,
        at_leader: true,
        hooked,
        kind,
        hidden,
        registers,
    };
    let declarations = body
        .iter()
        .take_while(|s| matches!(s, Statement::Variable(_) | Statement::Pragma(_)))
        .count();
    let first_span = first_instruction_span(&body[declarations..]).unwrap_or(function.span);
    let mut statements: Vec<Statement> = body[..declarations].to_vec();
    let prologue = prologue(kind, hooks, &rewriter.registers, &hidden.launch_shared());
    statements.extend(placed(parse_statements(&prologue), first_span));
    if hooks.entry_exit && matches!(kind, Body::Kernel { .. }) {
        let entry = call("chevron_on_entry", &[&launch, &block], None);
        statements.extend(placed(entry, first_span));
    }
    let rest = rewriter.rewrite(body[declarations..].to_vec());
    let falls_through = !rewriter.at_leader;
    statements.extend(rest);
    if falls_through && hooks.entry_exit && matches!(kind, Body::Kernel { .. }) {
        let exit = call("chevron_on_exit", &[&launch, &block], None);
        let last = last_instruction_span(&statements).unwrap_or(first_span);
        statements.extend(placed(exit, last));
    }
    function.body = Some(statements);
    Rewritten {
        block_instructions: rewriter.block_instructions,
        accesses: rewriter.accesses,
    }
}

/// Register declarations, `launch` (from the parameter or the `.shared` variable) and
/// `block_linear`.
fn prologue(kind: Body, hooks: Hooks, registers: &Registers, shared: &str) -> String {
    let Registers {
        launch,
        block,
        temp,
        address,
    } = registers;
    let mut text = format!(
        ".reg .b64 {launch};\n.reg .b32 {block};\n.reg .b32 {temp}<3>;\n.reg .b64 {address};\n"
    );
    match kind {
        Body::Kernel { publish } => {
            text.push_str(&format!("ld.param.u64 {launch}, [{LAUNCH_PARAM}];\n"));
            if publish {
                text.push_str(&format!("st.shared.u64 [{shared}], {launch};\n"));
            }
        }
        Body::DeviceFunction => {
            text.push_str(&format!("ld.shared.u64 {launch}, [{shared}];\n"));
        }
    }
    if matches!(kind, Body::Kernel { .. }) || hooks.entry_exit {
        text.push_str(&format!(
            "mov.u32 {temp}0, %ctaid.z;\nmov.u32 {temp}1, %nctaid.y;\nmov.u32 {temp}2, %ctaid.y;\n\
             mad.lo.u32 {temp}0, {temp}0, {temp}1, {temp}2;\nmov.u32 {temp}1, %nctaid.x;\n\
             mov.u32 {temp}2, %ctaid.x;\nmad.lo.u32 {block}, {temp}0, {temp}1, {temp}2;\n"
        ));
    }
    text
}

impl Rewriter<'_> {
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

    fn instruction(&mut self, mut inst: Instruction, out: &mut Vec<Statement>) {
        let span = inst.span;
        if self.at_leader {
            let id = self.first_block + self.block_instructions.len();
            self.block_instructions.push(0);
            self.at_leader = false;
            if self.hooks.blocks {
                let launch = &self.registers.launch;
                let hook = call("chevron_on_block", &[launch, &id.to_string()], None);
                out.extend(placed(hook, span));
            }
        }
        if let Some(last) = self.block_instructions.last_mut() {
            *last += 1;
        }
        let opcode = inst.opcode.known();
        if self.hooks.accesses {
            if let Some(access) = memory_access(&inst) {
                self.accesses += 1;
                out.extend(placed(access_call(&inst, access, &self.registers), span));
            }
        }
        let ends_thread = match opcode {
            Some(KnownOpcode::Exit) => true,
            Some(KnownOpcode::Ret) => matches!(self.kind, Body::Kernel { .. }),
            _ => false,
        };
        if ends_thread && self.hooks.entry_exit {
            let registers = [&self.registers.launch[..], &self.registers.block[..]];
            let hook = call("chevron_on_exit", &registers, inst.guard.as_ref());
            out.extend(placed(hook, span));
        }
        if matches!(
            opcode,
            Some(KnownOpcode::Bra | KnownOpcode::Brx | KnownOpcode::Ret | KnownOpcode::Exit)
        ) {
            self.at_leader = true;
        }
        self.redirect_call(&mut inst);
        out.push(Statement::Instruction(inst));
    }

    /// Points a direct call of a reached device function at its instrumented copy.
    fn redirect_call(&self, inst: &mut Instruction) {
        let Some(target) = call_target(inst).filter(|t| self.hooked.contains(*t)) else {
            return;
        };
        let copy = self.hidden.hooked(target);
        for operand in &mut inst.operands {
            if let Operand::Symbol(name) = operand {
                *name = copy;
                return;
            }
        }
    }
}

/// A memory access given a hook: its address operand and `size_and_flags`.
struct Access<'a> {
    base: &'a AddressBase,
    offset: i64,
    size_and_flags: u32,
}

/// `ld`/`ldu`/`st`/`atom`/`red` in the `.global` space, or in the generic space through a
/// register (flagged [`ACCESS_GENERIC`]).
fn memory_access(inst: &Instruction) -> Option<Access<'_>> {
    let mut flags = match inst.opcode.known()? {
        KnownOpcode::Ld | KnownOpcode::Ldu => 0,
        KnownOpcode::St => ACCESS_STORE,
        KnownOpcode::Atom | KnownOpcode::Red => ACCESS_STORE | ACCESS_ATOMIC,
        _ => return None,
    };
    let address = inst.operands.iter().find_map(|o| match o {
        Operand::Address(a) => Some(a),
        _ => None,
    })?;
    match inst.space() {
        Some(StateSpace::Global) => {}
        // A generic address held in a register may point anywhere; tools tell with `isspacep`.
        None if matches!(address.base, AddressBase::Register(_)) => flags |= ACCESS_GENERIC,
        _ => return None,
    }
    let element = inst.ty().map_or(4, ScalarType::size);
    let count = u32::from(inst.vector().unwrap_or(1));
    Some(Access {
        base: &address.base,
        offset: address.offset,
        size_and_flags: (element * count) & ACCESS_SIZE_MASK | flags,
    })
}

fn access_call(inst: &Instruction, access: Access<'_>, registers: &Registers) -> Vec<Statement> {
    let (launch, address) = (&registers.launch, &registers.address);
    let offset = access.offset;
    let compute = match access.base {
        AddressBase::Register(reg) if offset == 0 => format!("mov.b64 {address}, {};", reg.name),
        AddressBase::Register(reg) => format!("add.s64 {address}, {}, {offset};", reg.name),
        AddressBase::Symbol(name) if offset == 0 => format!("mov.u64 {address}, {name};"),
        AddressBase::Symbol(name) => format!("mov.u64 {address}, {name}+{offset};"),
        AddressBase::Absolute => format!("mov.u64 {address}, {offset};"),
    };
    let mut statements = parse_statements(&compute);
    let size = access.size_and_flags.to_string();
    statements.extend(call(
        "chevron_on_access",
        &[launch, address, &size],
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

/// `statements` with every instruction placed at `span` (recursing into blocks).
fn placed(mut statements: Vec<Statement>, span: Span) -> Vec<Statement> {
    fn place(statements: &mut [Statement], span: Span) {
        for statement in statements {
            match statement {
                Statement::Instruction(inst) => inst.span = span,
                Statement::Block(inner) => place(inner, span),
                _ => {}
            }
        }
    }
    place(&mut statements, span);
    statements
}

fn first_instruction_span(statements: &[Statement]) -> Option<Span> {
    statements.iter().find_map(|s| match s {
        Statement::Instruction(inst) => Some(inst.span),
        Statement::Block(inner) => first_instruction_span(inner),
        _ => None,
    })
}

fn last_instruction_span(statements: &[Statement]) -> Option<Span> {
    statements.iter().rev().find_map(|s| match s {
        Statement::Instruction(inst) => Some(inst.span),
        Statement::Block(inner) => last_instruction_span(inner),
        _ => None,
    })
}

/// Parses module-scope items of generated text.
pub(super) fn parse_items(text: &str) -> Vec<Item> {
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
