//! Renaming module-scope symbols throughout one module.
//!
//! Internal (non-visible) symbols of different modules may share a name; before the modules are
//! combined, the clashing ones are given fresh names. Every reference is rewritten: call targets,
//! address operands, `mov` of an address, variable initializers, `.alias`, and names in verbatim
//! `.section` bodies. Names declared inside a function (parameters, registers, locals, labels)
//! shadow module-scope ones, so references to those are left alone.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    AddressBase, Function, Initializer, Item, Module, Operand, RegisterRef, Statement,
};

/// Old name → new name.
pub(super) type Renames = HashMap<String, String>;

/// Renames the symbols of `module` named in `renames`.
pub(super) fn rename_module(module: &mut Module, renames: &Renames) {
    if renames.is_empty() {
        return;
    }
    for item in &mut module.items {
        match item {
            Item::Function(f) => rename_function(f, renames),
            Item::Variable(v) => {
                rename(&mut v.name, renames);
                if let Some(init) = &mut v.init {
                    rename_initializer(init, renames);
                }
            }
            Item::Alias { alias, aliasee } => {
                rename(alias, renames);
                rename(aliasee, renames);
            }
            Item::Section { body, .. } => *body = rename_in_text(body, renames),
            Item::File { .. } | Item::Pragma(_) => {}
        }
    }
}

fn rename(name: &mut String, renames: &Renames) {
    if let Some(new) = renames.get(name.as_str()) {
        *name = new.clone();
    }
}

fn rename_function(f: &mut Function, renames: &Renames) {
    rename(&mut f.name, renames);
    let Some(body) = &mut f.body else { return };
    let mut local = HashSet::new();
    for p in f.params.iter().chain(&f.returns) {
        local.insert(p.name.clone());
    }
    collect_locals(body, &mut local);
    let visible: Renames = renames
        .iter()
        .filter(|(old, _)| !local.contains(old.as_str()))
        .map(|(o, n)| (o.clone(), n.clone()))
        .collect();
    rename_statements(body, &visible);
}

/// Names declared anywhere in a body.
fn collect_locals(statements: &[Statement], local: &mut HashSet<String>) {
    for statement in statements {
        match statement {
            Statement::Label(name) => {
                local.insert(name.clone());
            }
            Statement::Variable(v) => {
                local.insert(v.name.clone());
            }
            Statement::CallPrototype { label, .. }
            | Statement::BranchTargets { label, .. }
            | Statement::CallTargets { label, .. } => {
                local.insert(label.clone());
            }
            Statement::Block(inner) => collect_locals(inner, local),
            _ => {}
        }
    }
}

fn rename_statements(statements: &mut [Statement], renames: &Renames) {
    for statement in statements {
        match statement {
            Statement::Instruction(inst) => inst
                .operands
                .iter_mut()
                .for_each(|o| rename_operand(o, renames)),
            Statement::Variable(v) => {
                if let Some(init) = &mut v.init {
                    rename_initializer(init, renames);
                }
            }
            Statement::Block(inner) => rename_statements(inner, renames),
            Statement::CallTargets { targets, .. } => {
                targets.iter_mut().for_each(|t| rename(t, renames))
            }
            _ => {}
        }
    }
}

fn rename_register(r: &mut RegisterRef, renames: &Renames) {
    rename(&mut r.name, renames);
}

fn rename_operand(operand: &mut Operand, renames: &Renames) {
    match operand {
        Operand::Symbol(name) | Operand::SymbolOffset(name, _) => rename(name, renames),
        Operand::Register(r) | Operand::Not(r) => rename_register(r, renames),
        Operand::Address(a) => match &mut a.base {
            AddressBase::Symbol(name) => rename(name, renames),
            AddressBase::Register(r) => rename_register(r, renames),
            AddressBase::Absolute => {}
        },
        Operand::Vector(items) | Operand::List(items) | Operand::AddressList(items) => {
            items.iter_mut().for_each(|o| rename_operand(o, renames))
        }
        Operand::PredicatePair(value, predicate) => {
            rename_operand(value, renames);
            rename_register(predicate, renames);
        }
        Operand::Immediate(_) | Operand::Sink => {}
    }
}

fn rename_initializer(init: &mut Initializer, renames: &Renames) {
    match init {
        Initializer::Address { symbol, .. } => rename(symbol, renames),
        Initializer::Array(items) => items
            .iter_mut()
            .for_each(|i| rename_initializer(i, renames)),
        Initializer::Mask { value, .. } => rename_initializer(value, renames),
        Initializer::Immediate(_) => {}
    }
}

/// Replaces whole identifiers of verbatim text (PTX identifier characters: letters, digits,
/// `_`, `$`, `%`).
pub(super) fn rename_in_text(text: &str, renames: &Renames) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_ident) {
        out.push_str(&rest[..start]);
        let word_len = rest[start..]
            .find(|c| !is_ident(c))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        out.push_str(renames.get(word).map_or(word, String::as_str));
        rest = &rest[start + word_len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_renames_whole_words_only() {
        let renames: Renames = [("f".to_string(), "f$m1".to_string())].into();
        assert_eq!(
            rename_in_text(".b64 f, f2, $f, (f)", &renames),
            ".b64 f$m1, f2, $f, (f$m1)"
        );
    }
}
