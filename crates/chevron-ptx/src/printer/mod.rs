//! The PTX printer: turns a [`Module`] back into PTX text that ptxas accepts.
//!
//! The output is canonical rather than a copy of the input (one declaration per line, no
//! comments, numbers in a fixed notation), and parsing it gives back the same module up to
//! spans: `parse(print(m)).without_spans() == m.without_spans()`.
//!
//! - this file: the module header, module-scope items and spans;
//! - `function`: functions, parameters, variables and statements;
//! - `instruction`: instructions, operands and immediates.

mod function;
mod instruction;

use crate::ir::{Instruction, Item, Linkage, Module, Operand, Span, Statement};
use std::fmt::{self, Write};

/// Prints a module as PTX text.
pub fn print(module: &Module) -> String {
    let mut out = String::with_capacity(4096);
    let version = module.version;
    let _ = writeln!(out, ".version {}.{}", version.major, version.minor);
    if !module.target.is_empty() {
        let _ = writeln!(out, ".target {}", module.target.join(", "));
    }
    let _ = writeln!(out, ".address_size {}\n", module.address_size);
    for item in &module.items {
        print_item(&mut out, item);
    }
    out
}

/// Prints one instruction as PTX text, with its `;` (used in error messages).
pub fn print_instruction(inst: &crate::ir::Instruction) -> String {
    let mut out = String::new();
    instruction::print_instruction(&mut out, inst);
    out
}

/// Prints one module-scope item.
fn print_item(out: &mut String, item: &Item) {
    match item {
        Item::Function(function) => function::print_function(out, function),
        Item::Variable(variable) => {
            function::print_variable(out, variable);
            out.push('\n');
        }
        Item::File { index, path, extra } => {
            let _ = write!(out, ".file {index} \"{path}\"");
            for value in extra {
                let _ = write!(out, ", {value}");
            }
            out.push('\n');
        }
        Item::Section { name, body } => {
            let _ = writeln!(out, ".section {name}\n{{{body}}}");
        }
        Item::Pragma(strings) => {
            print_pragma(out, strings);
            out.push('\n');
        }
        Item::Alias { alias, aliasee } => {
            let _ = writeln!(out, ".alias {alias}, {aliasee};");
        }
    }
}

/// Prints `.pragma "…", "…";` without a newline.
fn print_pragma(out: &mut String, strings: &[String]) {
    out.push_str(".pragma ");
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "\"{s}\"");
    }
    out.push(';');
}

/// The linkage directive followed by a space, or nothing for internal linkage.
fn linkage_prefix(linkage: Linkage) -> &'static str {
    match linkage {
        Linkage::Internal => "",
        Linkage::Visible => ".visible ",
        Linkage::Extern => ".extern ",
        Linkage::Weak => ".weak ",
        Linkage::Common => ".common ",
    }
}

/// Displays as [`print`](fn@print) writes it.
impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

/// Displays as PTX, e.g. `@!%p1 ld.global.f32 %f1, [%rd1+4];` (for error messages and traces).
impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        instruction::print_instruction(&mut out, self);
        f.write_str(&out)
    }
}

/// Displays as PTX, e.g. `[%rd1+-8]` or `{%r1, _}`.
impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        instruction::print_operand(&mut out, self);
        f.write_str(&out)
    }
}

impl Module {
    /// A copy with every span zeroed, for comparing modules parsed from different texts.
    pub fn without_spans(&self) -> Module {
        let mut module = self.clone();
        for item in &mut module.items {
            match item {
                Item::Function(function) => {
                    function.span = Span::default();
                    if let Some(body) = &mut function.body {
                        clear_statement_spans(body);
                    }
                }
                Item::Variable(variable) => variable.span = Span::default(),
                _ => {}
            }
        }
        module
    }
}

/// Zeroes the spans of statements, recursing into blocks.
fn clear_statement_spans(statements: &mut [Statement]) {
    for statement in statements {
        match statement {
            Statement::Instruction(inst) => inst.span = Span::default(),
            Statement::Variable(variable) => variable.span = Span::default(),
            Statement::Block(inner) => clear_statement_spans(inner),
            _ => {}
        }
    }
}
