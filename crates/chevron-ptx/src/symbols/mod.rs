//! The symbol table of a PTX module: kernels, device functions and globals.
//!
//! Each symbol carries its mangled name, its demangled C++ signature where the name is mangled,
//! its linkage, whether this module defines it, the parameter layout (for kernels, the layout of
//! the launch parameter buffer) and the functions it calls. Code objects that are not PTX (cubins)
//! produce the same types, so the runtime treats every code object alike.
//!
//! Look symbols up with [`SymbolTable::get`] (exact mangled name) or [`SymbolTable::find`]
//! (mangled name, C++ signature, template instance, or plain name when unambiguous).

mod call_graph;
mod demangle;
mod layout;
mod lookup;
#[cfg(test)]
pub(crate) mod test_ir;
#[cfg(test)]
mod tests;

pub use call_graph::{CallGraph, FunctionCalls};
pub use demangle::{demangle, normalize as normalize_signature};
pub use layout::{
    align_up, buffer_size, layout_params, param_size_align, variable_size_align, ParamLayout,
};
pub use lookup::LookupError;

use std::collections::HashMap;

use crate::ir::{self, FunctionKind, Item, Linkage, StateSpace};

/// The symbols of one module, in source order (one entry per name).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SymbolTable {
    /// The symbols in order of their first declaration.
    pub symbols: Vec<Symbol>,
}

/// A kernel, device function or module-scope variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name as it appears in the module (mangled for C++).
    pub name: String,
    /// The C++ signature without return type (`saxpy(float, float const*, float*)`), or the
    /// demangled name of a mangled variable; `None` for unmangled names.
    pub demangled: Option<String>,
    /// What the symbol is.
    pub kind: SymbolKind,
    /// The linkage of the definition, or of the declaration when the module only declares it.
    pub linkage: Linkage,
    /// Whether this module defines the symbol (a body, or a variable that is not `.extern`).
    pub defined: bool,
    /// Parameter layout: for kernels the launch parameter buffer; empty for globals.
    pub params: Vec<ParamLayout>,
    /// Functions this one calls directly, in order of first appearance (see [`CallGraph`] for
    /// indirect calls and address-taken functions).
    pub callees: Vec<String>,
}

/// What a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    /// An `.entry`.
    Kernel,
    /// A `.func`.
    DeviceFunction,
    /// A module-scope variable.
    Global {
        /// Its state space (`Global`, `Const`, `Shared`, …).
        space: StateSpace,
        /// Size in bytes (0 for unsized arrays such as `extern .shared` buffers).
        size: u64,
        /// Alignment in bytes.
        align: u32,
    },
}

impl Symbol {
    /// Whether this is a kernel.
    pub fn is_kernel(&self) -> bool {
        self.kind == SymbolKind::Kernel
    }

    /// The name to show a person: the demangled signature when there is one.
    pub fn display_name(&self) -> &str {
        self.demangled.as_deref().unwrap_or(&self.name)
    }

    /// Size of the parameter buffer: the end of the last parameter.
    pub fn param_buffer_size(&self) -> u32 {
        buffer_size(&self.params)
    }
}

impl SymbolTable {
    /// Builds the symbol table of `module`. A declaration followed by a definition of the same
    /// name gives one symbol, defined, with the definition's linkage; an `.alias` gives a symbol
    /// of the aliased function's kind and parameters.
    pub fn from_module(module: &ir::Module) -> SymbolTable {
        let graph = CallGraph::from_module(module);
        let mut table = SymbolTable::default();
        let mut index: HashMap<String, usize> = HashMap::new();
        for item in &module.items {
            let symbol = match item {
                Item::Function(f) => Symbol {
                    name: f.name.clone(),
                    demangled: demangle(&f.name),
                    kind: match f.kind {
                        FunctionKind::Entry => SymbolKind::Kernel,
                        FunctionKind::Func => SymbolKind::DeviceFunction,
                    },
                    linkage: f.linkage,
                    defined: f.body.is_some(),
                    params: layout_params(&f.params),
                    callees: graph
                        .calls(&f.name)
                        .map(|c| c.direct.clone())
                        .unwrap_or_default(),
                },
                Item::Variable(v) => {
                    let (size, align) = variable_size_align(v);
                    Symbol {
                        name: v.name.clone(),
                        demangled: demangle(&v.name),
                        kind: SymbolKind::Global {
                            space: v.space,
                            size,
                            align,
                        },
                        linkage: v.linkage,
                        defined: v.linkage != Linkage::Extern,
                        params: Vec::new(),
                        callees: Vec::new(),
                    }
                }
                Item::Alias { alias, aliasee } => {
                    let Some(target) = index.get(aliasee).map(|&i| &table.symbols[i]) else {
                        continue;
                    };
                    Symbol {
                        name: alias.clone(),
                        demangled: demangle(alias),
                        defined: true,
                        callees: vec![aliasee.clone()],
                        ..target.clone()
                    }
                }
                _ => continue,
            };
            table.insert(&mut index, symbol);
        }
        table
    }

    /// Adds `symbol`, merging it with an earlier declaration of the same name.
    fn insert(&mut self, index: &mut HashMap<String, usize>, symbol: Symbol) {
        match index.get(&symbol.name) {
            Some(&i) => {
                let earlier = &mut self.symbols[i];
                if symbol.defined || !earlier.defined {
                    *earlier = symbol;
                }
            }
            None => {
                index.insert(symbol.name.clone(), self.symbols.len());
                self.symbols.push(symbol);
            }
        }
    }

    /// The symbol with exactly this (mangled) name.
    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// Finds a symbol by exact name, by demangled signature (tolerant of whitespace and of
    /// `const float*` vs `float const*`), by template instance (`block_scan<int, 128>`), or by
    /// plain or partly qualified name (`block_scan`, `ns::block_scan`) when only one symbol has
    /// it. The error lists the candidates when the query is ambiguous, or close names when
    /// nothing matches.
    pub fn find(&self, query: &str) -> Result<&Symbol, LookupError> {
        lookup::find(&self.symbols, query, |_| true)
    }

    /// Like [`find`](Self::find), among kernels only: a kernel `scale` is found even when a
    /// device function `scale(float)` exists too, and the candidates of an error are kernels.
    pub fn find_kernel(&self, query: &str) -> Result<&Symbol, LookupError> {
        lookup::find(&self.symbols, query, Symbol::is_kernel)
    }

    /// Like [`find`](Self::find), among the symbols `accept` admits.
    pub fn find_where(
        &self,
        query: &str,
        accept: impl Fn(&Symbol) -> bool,
    ) -> Result<&Symbol, LookupError> {
        lookup::find(&self.symbols, query, accept)
    }

    /// The kernels, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = &Symbol> {
        self.symbols.iter().filter(|s| s.is_kernel())
    }

    /// The device functions, in source order.
    pub fn device_functions(&self) -> impl Iterator<Item = &Symbol> {
        self.symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::DeviceFunction)
    }

    /// The module-scope variables, in source order.
    pub fn globals(&self) -> impl Iterator<Item = &Symbol> {
        self.symbols
            .iter()
            .filter(|s| matches!(s.kind, SymbolKind::Global { .. }))
    }
}
