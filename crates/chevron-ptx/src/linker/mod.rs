//! The PTX linker: combines several modules into one, so that one module calls another's device
//! functions and uses its globals (what nvJitLink does for `-rdc` objects on CUDA).
//!
//! - `.extern` functions and variables resolve against definitions in the other modules; a strong
//!   (`.visible`) definition beats `.weak` ones, the largest `.common` variable wins, otherwise the
//!   first `.weak` definition. Every duplicate strong definition and every unresolved reference is
//!   reported, by name (see [`SymbolProblem`]).
//! - Internal symbols of different modules that share a name are renamed (`name$m1`), with every
//!   reference to them.
//! - The header takes the highest `.version` and architecture (see `header.rs`); `.address_size`
//!   must agree.
//! - The linked module is ordered: module-scope `.pragma`s, `.file`s (renumbered), declarations
//!   of external functions, forward declarations of functions used before their definition,
//!   variables, function definitions (in module order), `.alias`es, and debug `.section`s (kept
//!   when only one module has them; otherwise dropped, with the `debug` target word).
//!
//! [`check_symbols`] applies the same resolution rules to symbol tables alone (of cubins, say),
//! for objects another linker combines.

mod check;
mod debug_info;
mod device_runtime;
mod header;
mod rename;
mod resolve;

pub use check::check_symbols;
pub use device_runtime::{is_device_runtime, DEVICE_RUNTIME_PTX};
pub use resolve::DRIVER_PROVIDED;

use std::collections::{HashMap, HashSet};

use crate::ir::{
    AddressBase, FunctionKind, Initializer, Item, Linkage, Module, Operand, Statement,
};
use crate::symbols::demangle;

use debug_info::FileTable;
use resolve::Resolution;

/// How [`link_with`] treats names no module defines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// Keep unresolved `.extern` declarations instead of reporting them (a partial link whose
    /// result is linked again later).
    pub allow_unresolved: bool,
    /// Further names, besides [`DRIVER_PROVIDED`], that whoever loads the result supplies.
    pub provided: Vec<String>,
}

/// A problem with one symbol name; modules are given by their index in the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymbolProblem {
    /// More than one module defines the name with strong (`.visible`) linkage.
    #[error("{} is defined in more than one module ({})", shown(.name), indices(.modules))]
    Duplicate {
        /// The (mangled) name.
        name: String,
        /// The modules that define it.
        modules: Vec<usize>,
    },
    /// The name is declared `.extern` but no module defines it.
    #[error("{} is declared in module {} but defined in none", shown(.name), indices(.modules))]
    Unresolved {
        /// The (mangled) name.
        name: String,
        /// The modules that declare it.
        modules: Vec<usize>,
    },
    /// The name is a kernel, device function or variable in one module and something else in
    /// another.
    #[error("{} is not the same kind of symbol in modules {}", shown(.name), indices(.modules))]
    KindMismatch {
        /// The (mangled) name.
        name: String,
        /// The modules that declare or define it.
        modules: Vec<usize>,
    },
    /// A declaration's parameters or return values differ in number or size from the
    /// definition's.
    #[error(
        "{} is declared with other parameters than it is defined with (modules {})",
        shown(.name),
        indices(.modules)
    )]
    SignatureMismatch {
        /// The (mangled) name.
        name: String,
        /// The defining module, then the declaring one.
        modules: Vec<usize>,
    },
}

/// A name in backquotes, with its C++ signature when it is mangled.
fn shown(name: &str) -> String {
    match demangle(name) {
        Some(signature) => format!("`{name}` (`{signature}`)"),
        None => format!("`{name}`"),
    }
}

fn indices(modules: &[usize]) -> String {
    modules
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why modules could not be linked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// No modules were given.
    #[error("nothing to link: no modules given")]
    NoModules,
    /// The modules disagree on `.address_size`.
    #[error(
        "modules disagree on .address_size: module 0 is {first}-bit, module {module} is {other}-bit"
    )]
    AddressSize {
        /// The first module's address size.
        first: u32,
        /// The index of the first module that differs.
        module: usize,
        /// Its address size.
        other: u32,
    },
    /// Symbols could not be resolved; every problem found is listed.
    #[error("link failed: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Symbols(Vec<SymbolProblem>),
}

/// Links `modules` into one; names no module defines are errors unless the driver provides them.
pub fn link(modules: &[Module]) -> Result<Module, LinkError> {
    link_with(modules, &LinkOptions::default())
}

/// Links `modules` into one, with `options`.
pub fn link_with(modules: &[Module], options: &LinkOptions) -> Result<Module, LinkError> {
    let mut header = header::merge(modules)?;
    let renames = resolve::internal_renames(modules);
    let files = FileTable::build(modules);
    let keep_sections = debug_info::sections_mergeable(modules);
    if !keep_sections {
        // ptxas rejects `.target …, debug` without debug sections.
        header.target.retain(|word| word != "debug");
    }
    let mut work = modules.to_vec();
    for (index, module) in work.iter_mut().enumerate() {
        rename::rename_module(module, &renames[index]);
        files.rewrite(index, module, keep_sections);
    }
    let resolved = resolve::resolve(&work, options).map_err(LinkError::Symbols)?;
    let mut parts = assemble(&work, &resolved, keep_sections);
    let forward = forward_declarations(&parts.variables, &parts.definitions);
    let mut items = parts.pragmas;
    items.extend(files.files);
    items.append(&mut parts.extern_declarations);
    items.extend(forward);
    items.append(&mut parts.variables);
    items.append(&mut parts.definitions);
    items.append(&mut parts.aliases);
    items.append(&mut parts.sections);
    Ok(Module {
        version: header.version,
        target: header.target,
        address_size: header.address_size,
        items,
    })
}

/// The items of the linked module, by group.
#[derive(Default)]
struct Parts {
    pragmas: Vec<Item>,
    extern_declarations: Vec<Item>,
    variables: Vec<Item>,
    definitions: Vec<Item>,
    aliases: Vec<Item>,
    sections: Vec<Item>,
}

fn assemble(work: &[Module], resolved: &HashMap<String, Resolution>, keep_sections: bool) -> Parts {
    let mut parts = Parts::default();
    let mut emitted: HashSet<&str> = HashSet::new();
    let item_at = |(m, i): (usize, usize)| work[m].items[i].clone();
    for (m, module) in work.iter().enumerate() {
        let defined_here: HashSet<&str> = module
            .items
            .iter()
            .filter_map(|it| match it {
                Item::Function(f) if f.body.is_some() => Some(f.name.as_str()),
                _ => None,
            })
            .collect();
        for (i, item) in module.items.iter().enumerate() {
            match item {
                Item::Pragma(_) if !parts.pragmas.contains(item) => {
                    parts.pragmas.push(item.clone())
                }
                Item::Pragma(_) | Item::File { .. } => {}
                Item::Section { .. } if keep_sections => parts.sections.push(item.clone()),
                Item::Section { .. } => {}
                Item::Alias { alias, .. } => match resolved.get(alias) {
                    Some(r) if r.winner != Some((m, i)) => {}
                    _ => parts.aliases.push(item.clone()),
                },
                // A definition stays where its module put it, after what its initializer names.
                Item::Variable(v) => match resolved.get(&v.name) {
                    None => parts.variables.push(item.clone()),
                    Some(r) if r.winner == Some((m, i)) => parts.variables.push(item.clone()),
                    Some(r) if r.winner.is_none() && emitted.insert(&v.name) => {
                        parts.variables.push(item_at(r.first));
                    }
                    Some(_) => {}
                },
                Item::Function(f) => match resolved.get(&f.name) {
                    None if f.body.is_some() => parts.definitions.push(item.clone()),
                    None if !defined_here.contains(f.name.as_str()) => {
                        parts.extern_declarations.push(item.clone())
                    }
                    None => {}
                    Some(r) if r.winner == Some((m, i)) => parts.definitions.push(item.clone()),
                    Some(r) if r.winner.is_none() && emitted.insert(&f.name) => {
                        parts.extern_declarations.push(item_at(r.first));
                    }
                    Some(_) => {}
                },
            }
        }
    }
    parts
}

/// Declarations of device functions referenced before their definition (by a variable
/// initializer, or by an earlier function).
fn forward_declarations(variables: &[Item], definitions: &[Item]) -> Vec<Item> {
    let position: HashMap<&str, usize> = definitions
        .iter()
        .enumerate()
        .filter_map(|(p, item)| match item {
            Item::Function(f) if f.kind == FunctionKind::Func => Some((f.name.as_str(), p)),
            _ => None,
        })
        .collect();
    let mut needed: HashSet<usize> = HashSet::new();
    let mut names = Vec::new();
    for item in variables {
        if let Item::Variable(v) = item {
            if let Some(init) = &v.init {
                initializer_names(init, &mut names);
            }
        }
    }
    needed.extend(
        names
            .drain(..)
            .filter_map(|n| position.get(n.as_str()).copied()),
    );
    for (p, item) in definitions.iter().enumerate() {
        if let Item::Function(f) = item {
            statement_names(f.body.as_deref().unwrap_or_default(), &mut names);
            needed.extend(
                names
                    .drain(..)
                    .filter_map(|n| position.get(n.as_str()).copied())
                    .filter(|&q| q > p),
            );
        }
    }
    let mut needed: Vec<usize> = needed.into_iter().collect();
    needed.sort_unstable();
    needed
        .into_iter()
        .filter_map(|p| match &definitions[p] {
            Item::Function(f) => {
                let mut declaration = f.clone();
                declaration.body = None;
                declaration.directives.clear();
                if declaration.linkage == Linkage::Common {
                    declaration.linkage = Linkage::Weak;
                }
                Some(Item::Function(declaration))
            }
            _ => None,
        })
        .collect()
}

fn initializer_names(init: &Initializer, out: &mut Vec<String>) {
    match init {
        Initializer::Address { symbol, .. } => out.push(symbol.clone()),
        Initializer::Array(items) => items.iter().for_each(|i| initializer_names(i, out)),
        Initializer::Mask { value, .. } => initializer_names(value, out),
        Initializer::Immediate(_) => {}
    }
}

fn statement_names(statements: &[Statement], out: &mut Vec<String>) {
    for statement in statements {
        match statement {
            Statement::Instruction(inst) => {
                inst.operands.iter().for_each(|o| operand_names(o, out))
            }
            Statement::Block(inner) => statement_names(inner, out),
            Statement::CallTargets { targets, .. } => out.extend(targets.iter().cloned()),
            Statement::Variable(v) => {
                if let Some(init) = &v.init {
                    initializer_names(init, out);
                }
            }
            _ => {}
        }
    }
}

fn operand_names(operand: &Operand, out: &mut Vec<String>) {
    match operand {
        Operand::Symbol(name) | Operand::SymbolOffset(name, _) => out.push(name.clone()),
        Operand::Address(a) => {
            if let AddressBase::Symbol(name) = &a.base {
                out.push(name.clone());
            }
        }
        Operand::Vector(items) | Operand::List(items) | Operand::AddressList(items) => {
            items.iter().for_each(|o| operand_names(o, out))
        }
        Operand::PredicatePair(value, _) => operand_names(value, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
