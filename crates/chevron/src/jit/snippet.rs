//! One compiled snippet, ready for linking: its function definitions (global references already
//! rewritten), what each calls, and what the linker needs around them.

use std::collections::{HashMap, HashSet};

use chevron_ptx::ir::{Function, FunctionKind, Item, Linkage, Module, Variable, Version};
use chevron_ptx::symbols::SymbolTable;

/// A snippet's code. Shared (`Arc`) by the session's table of live definitions and by the
/// kernels linked from it; dropped once neither needs any of its functions.
pub struct SnippetCode {
    /// The snippet's number in its session (1, 2, …).
    pub id: u64,
    /// The PTX header.
    pub version: Version,
    /// `.target` words.
    pub target: Vec<String>,
    /// `.address_size`.
    pub address_size: u32,
    /// Function definitions (kernels and device functions).
    pub functions: Vec<Function>,
    /// Index into `functions` by name.
    pub by_name: HashMap<String, usize>,
    /// The callees of each function, by name.
    pub calls: Vec<Vec<String>>,
    /// The `.shared` variables each function refers to, by name.
    pub shared_uses: Vec<Vec<String>>,
    /// Module-scope `.shared` variables.
    pub shared: Vec<Variable>,
    /// `.extern` function declarations (earlier snippets' functions, `vprintf`, …).
    pub declarations: Vec<Function>,
    /// The symbol table of the compiled snippet (for lookups by signature or plain name).
    pub symbols: SymbolTable,
}

impl SnippetCode {
    /// Whether function `index` is visible to other snippets (not internal).
    pub fn is_visible(&self, index: usize) -> bool {
        self.functions[index].linkage != Linkage::Internal
    }

    /// Whether function `index` is a kernel.
    pub fn is_kernel(&self, index: usize) -> bool {
        self.functions[index].kind == FunctionKind::Entry
    }

    /// The declaration of function `name` this snippet carries: its own `.extern` one, or one
    /// made from a definition of its that a later snippet replaced.
    pub fn declaration_of(&self, name: &str) -> Option<Function> {
        if let Some(declared) = self.declarations.iter().find(|f| f.name == name) {
            return Some(declared.clone());
        }
        let defined = &self.functions[*self.by_name.get(name)?];
        Some(Function {
            kind: defined.kind,
            linkage: Linkage::Extern,
            name: defined.name.clone(),
            returns: defined.returns.clone(),
            params: defined.params.clone(),
            noreturn: defined.noreturn,
            directives: Vec::new(),
            body: None,
            span: defined.span,
        })
    }

    /// A module of this snippet's functions `chosen` (indices), with the declarations of
    /// `external` callees and the `.shared` variables they use.
    pub fn part(&self, chosen: &[usize], external: &[String]) -> Module {
        let mut items = Vec::new();
        let used: HashSet<&str> = chosen
            .iter()
            .flat_map(|&i| self.shared_uses[i].iter().map(String::as_str))
            .collect();
        items.extend(
            self.shared
                .iter()
                .filter(|v| used.contains(v.name.as_str()))
                .cloned()
                .map(Item::Variable),
        );
        items.extend(
            external
                .iter()
                .filter_map(|name| self.declaration_of(name))
                .map(Item::Function),
        );
        items.extend(
            chosen
                .iter()
                .map(|&i| Item::Function(self.functions[i].clone())),
        );
        Module {
            version: self.version,
            target: self.target.clone(),
            address_size: self.address_size,
            items,
        }
    }
}
