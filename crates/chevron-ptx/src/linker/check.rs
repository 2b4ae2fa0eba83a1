//! Link checks over symbol tables alone, for objects chevron does not link itself (cubins handed
//! to nvJitLink, which reports duplicate definitions on stderr yet returns success).
//!
//! The same rules as [`link`](super::link): two strong definitions of a name are a duplicate; a
//! name only declared is unresolved unless the driver provides it, it is dynamic shared memory,
//! or the options allow it; a name must be the same kind of symbol everywhere.

use std::collections::HashMap;
use std::mem::discriminant;

use crate::ir::{Linkage, StateSpace};
use crate::symbols::{Symbol, SymbolKind, SymbolTable};

use super::{LinkOptions, SymbolProblem, DRIVER_PROVIDED};

/// Checks that the objects whose symbol tables are given would link: returns every problem
/// found, in the order the names first appear. Internal symbols are ignored.
pub fn check_symbols(
    tables: &[&SymbolTable],
    options: &LinkOptions,
) -> Result<(), Vec<SymbolProblem>> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_name: HashMap<&str, Vec<(usize, &Symbol)>> = HashMap::new();
    for (module, table) in tables.iter().enumerate() {
        for symbol in &table.symbols {
            if symbol.linkage == Linkage::Internal {
                continue;
            }
            let list = by_name.entry(symbol.name.as_str()).or_default();
            if list.is_empty() {
                order.push(symbol.name.as_str());
            }
            list.push((module, symbol));
        }
    }
    let problems: Vec<SymbolProblem> = order
        .into_iter()
        .filter_map(|name| check_name(name, &by_name[name], options))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn modules(list: &[(usize, &Symbol)]) -> Vec<usize> {
    let mut modules: Vec<usize> = list.iter().map(|(m, _)| *m).collect();
    modules.dedup();
    modules
}

fn check_name(
    name: &str,
    list: &[(usize, &Symbol)],
    options: &LinkOptions,
) -> Option<SymbolProblem> {
    let first = list[0].1;
    if list
        .iter()
        .any(|(_, s)| discriminant(&s.kind) != discriminant(&first.kind))
    {
        return Some(SymbolProblem::KindMismatch {
            name: name.to_string(),
            modules: modules(list),
        });
    }
    let strong: Vec<(usize, &Symbol)> = list
        .iter()
        .copied()
        .filter(|(_, s)| s.defined && s.linkage == Linkage::Visible)
        .collect();
    if strong.len() > 1 {
        return Some(SymbolProblem::Duplicate {
            name: name.to_string(),
            modules: modules(&strong),
        });
    }
    let defined = list.iter().any(|(_, s)| s.defined);
    let dynamic_shared = matches!(
        first.kind,
        SymbolKind::Global {
            space: StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster,
            ..
        }
    );
    let provided = DRIVER_PROVIDED.contains(&name) || options.provided.iter().any(|p| p == name);
    if !defined && !options.allow_unresolved && !dynamic_shared && !provided {
        return Some(SymbolProblem::Unresolved {
            name: name.to_string(),
            modules: modules(list),
        });
    }
    None
}
