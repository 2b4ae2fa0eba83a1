//! Lines of the printed text of an instrumented module, back to the lines of the original PTX.
//!
//! The rewritten IR keeps the original source positions (inserted instructions carry the
//! position of the instruction they were inserted for); once printed and parsed again, the
//! instructions carry their lines in the printed text. Pairing the two, instruction by
//! instruction, gives the map.

use std::collections::HashMap;

use crate::ir::{Item, Module, Statement};

/// Printed line → original line, for the lines holding instructions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMap {
    lines: HashMap<u32, u32>,
}

fn instruction_lines(statements: &[Statement], out: &mut Vec<u32>) {
    for statement in statements {
        match statement {
            Statement::Instruction(inst) => out.push(inst.span.line),
            Statement::Block(inner) => instruction_lines(inner, out),
            _ => {}
        }
    }
}

fn module_lines(module: &Module) -> Vec<u32> {
    let mut lines = Vec::new();
    for item in &module.items {
        if let Item::Function(function) = item {
            instruction_lines(function.body.as_deref().unwrap_or_default(), &mut lines);
        }
    }
    lines
}

impl LineMap {
    /// The map from `printed` (the text of `rewritten`, parsed again) to the positions
    /// `rewritten` carries; lines whose instructions carry no position (0) are left out.
    pub fn new(rewritten: &Module, printed: &Module) -> LineMap {
        let lines = module_lines(printed)
            .into_iter()
            .zip(module_lines(rewritten))
            .filter(|&(_, original)| original != 0)
            .collect();
        LineMap { lines }
    }

    /// The original line of printed line `line`, if it holds an instruction with one.
    pub fn original(&self, line: u32) -> Option<u32> {
        self.lines.get(&line).copied()
    }

    /// `message` with each `line N` of the printed text followed by `(original PTX line M)`,
    /// where N maps to M: for messages of compilers that saw the printed text (ptxas).
    pub fn annotate(&self, message: &str) -> String {
        let mut out = String::with_capacity(message.len() + 32);
        let mut rest = message;
        while let Some(at) = rest.find("line ") {
            let (before, after) = rest.split_at(at + "line ".len());
            out.push_str(before);
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (number, tail) = after.split_at(digits);
            out.push_str(number);
            if let Some(original) = number.parse().ok().and_then(|n| self.original(n)) {
                out.push_str(&format!(" (original PTX line {original})"));
            }
            rest = tail;
        }
        out.push_str(rest);
        out
    }
}
