//! Printing functions, parameters, variable declarations and body statements.

use super::instruction::{print_immediate, print_instruction, print_signed_offset};
use super::{linkage_prefix, print_pragma};
use crate::ir::{
    Function, FunctionDirective, FunctionKind, Initializer, Param, Statement, Variable,
};
use std::fmt::Write;

/// Prints an `.entry`/`.func` with its body or closing `;`.
pub(super) fn print_function(out: &mut String, function: &Function) {
    out.push_str(linkage_prefix(function.linkage));
    out.push_str(match function.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    });
    if !function.returns.is_empty() {
        print_params(out, &function.returns);
        out.push(' ');
    }
    out.push_str(&function.name);
    print_params(out, &function.params);
    if function.noreturn {
        out.push_str(" .noreturn");
    }
    out.push('\n');
    for directive in &function.directives {
        match directive {
            FunctionDirective::Performance { name, values } => {
                let _ = write!(out, ".{name}");
                for (i, value) in values.iter().enumerate() {
                    let _ = write!(out, "{}{value}", if i == 0 { " " } else { ", " });
                }
            }
            FunctionDirective::Pragma(strings) => print_pragma(out, strings),
        }
        out.push('\n');
    }
    match &function.body {
        None => out.push_str(";\n\n"),
        Some(body) => {
            out.push_str("{\n");
            print_statements(out, body, 1);
            out.push_str("}\n\n");
        }
    }
}

/// Prints `(param, …)`, one parameter per line.
fn print_params(out: &mut String, params: &[Param]) {
    if params.is_empty() {
        out.push_str("()");
        return;
    }
    out.push_str("(\n");
    for (i, param) in params.iter().enumerate() {
        out.push('\t');
        print_param(out, param);
        out.push_str(if i + 1 < params.len() { ",\n" } else { "\n" });
    }
    out.push(')');
}

/// Prints one parameter.
fn print_param(out: &mut String, param: &Param) {
    let _ = write!(out, ".{}", param.space.as_str());
    if let Some(align) = param.align {
        let _ = write!(out, " .align {align}");
    }
    if let Some(n) = param.vector {
        let _ = write!(out, " .v{n}");
    }
    let _ = write!(out, " .{}", param.ty.as_str());
    if let Some(ptr) = &param.ptr {
        out.push_str(" .ptr");
        if let Some(space) = ptr.space {
            let _ = write!(out, " .{}", space.as_str());
        }
        if let Some(align) = ptr.align {
            let _ = write!(out, " .align {align}");
        }
    }
    let _ = write!(out, " {}", param.name);
    print_dims(out, &param.array);
}

/// Prints array dimensions.
fn print_dims(out: &mut String, dims: &[Option<u64>]) {
    for dim in dims {
        match dim {
            Some(n) => {
                let _ = write!(out, "[{n}]");
            }
            None => out.push_str("[]"),
        }
    }
}

/// Prints a variable declaration with its `;` (no newline).
pub(super) fn print_variable(out: &mut String, variable: &Variable) {
    out.push_str(linkage_prefix(variable.linkage));
    let _ = write!(out, ".{}", variable.space.as_str());
    if !variable.attributes.is_empty() {
        let words: Vec<String> = variable
            .attributes
            .iter()
            .map(|a| format!(".{a}"))
            .collect();
        let _ = write!(out, " .attribute({})", words.join(", "));
    }
    if let Some(align) = variable.align {
        let _ = write!(out, " .align {align}");
    }
    if let Some(n) = variable.vector {
        let _ = write!(out, " .v{n}");
    }
    let _ = write!(out, " .{} {}", variable.ty.as_str(), variable.name);
    if let Some(n) = variable.range {
        let _ = write!(out, "<{n}>");
    }
    print_dims(out, &variable.array);
    if let Some(init) = &variable.init {
        out.push_str(" = ");
        print_initializer(out, init);
    }
    out.push(';');
}

/// Prints an initializer.
fn print_initializer(out: &mut String, init: &Initializer) {
    match init {
        Initializer::Immediate(imm) => print_immediate(out, *imm),
        Initializer::Address {
            symbol,
            generic,
            offset,
        } => {
            if *generic {
                let _ = write!(out, "generic({symbol})");
            } else {
                out.push_str(symbol);
            }
            print_signed_offset(out, *offset);
        }
        Initializer::Mask { mask, value } => {
            let _ = write!(out, "0x{mask:X}(");
            print_initializer(out, value);
            out.push(')');
        }
        Initializer::Array(items) => {
            out.push('{');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_initializer(out, item);
            }
            out.push('}');
        }
    }
}

/// Prints statements at an indentation depth (in tabs).
fn print_statements(out: &mut String, statements: &[Statement], depth: usize) {
    for statement in statements {
        if !matches!(statement, Statement::Label(_)) {
            for _ in 0..depth {
                out.push('\t');
            }
        }
        match statement {
            Statement::Label(name) => {
                let _ = write!(out, "{name}:");
            }
            Statement::Instruction(inst) => print_instruction(out, inst),
            Statement::Variable(variable) => print_variable(out, variable),
            Statement::Block(inner) => {
                out.push_str("{\n");
                print_statements(out, inner, depth + 1);
                for _ in 0..depth {
                    out.push('\t');
                }
                out.push('}');
            }
            Statement::CallPrototype {
                label,
                returns,
                params,
                noreturn,
            } => {
                let _ = write!(out, "{label}: .callprototype ");
                print_params(out, returns);
                out.push_str(" _ ");
                print_params(out, params);
                if *noreturn {
                    out.push_str(" .noreturn");
                }
                out.push(';');
            }
            Statement::Loc {
                file,
                line,
                col,
                extra,
            } => {
                let _ = write!(out, ".loc {file} {line} {col}");
                if !extra.is_empty() {
                    if !extra.starts_with(',') {
                        out.push(' ');
                    }
                    out.push_str(extra);
                }
            }
            Statement::Pragma(strings) => print_pragma(out, strings),
            Statement::BranchTargets { label, targets } => {
                let _ = write!(out, "{label}: .branchtargets {};", targets.join(", "));
            }
            Statement::CallTargets { label, targets } => {
                let _ = write!(out, "{label}: .calltargets {};", targets.join(", "));
            }
        }
        out.push('\n');
    }
}
