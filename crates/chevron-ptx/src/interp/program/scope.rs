//! Name resolution while decoding a function: nested scopes of registers and variables over the
//! module's globals and functions.

use std::collections::HashMap;

/// What a name denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binding {
    /// A register (or the first of a vector register's components).
    Reg(u32),
    /// `%r<count>`: registers `base .. base + count` named `prefix0 ..`.
    RegRange { base: u32, count: u32 },
    /// A `.global`/`.const` variable at this device address.
    Global(u64),
    /// A `.shared` variable at this shared-space offset.
    Shared(u64),
    /// A `.local` or `.param` variable of the function's frame, at this offset.
    Frame(u64),
    /// A kernel parameter at this offset of the parameter buffer.
    KernelParam(u64),
    /// A function of the module, by index.
    Function(u32),
    /// A `.callprototype` label.
    Prototype,
}

/// Nested scopes; the outermost is the module's.
#[derive(Debug, Default)]
pub(crate) struct Scopes<'m> {
    module: Option<&'m HashMap<String, Binding>>,
    stack: Vec<HashMap<String, Binding>>,
}

impl<'m> Scopes<'m> {
    /// Scopes over the module's names.
    pub fn new(module: &'m HashMap<String, Binding>) -> Self {
        Scopes {
            module: Some(module),
            stack: vec![HashMap::new()],
        }
    }

    /// Enters a `{ … }` block.
    pub fn push(&mut self) {
        self.stack.push(HashMap::new());
    }

    /// Leaves a block.
    pub fn pop(&mut self) {
        self.stack.pop();
    }

    /// Declares `name` in the innermost scope.
    pub fn declare(&mut self, name: &str, binding: Binding) {
        if let Some(top) = self.stack.last_mut() {
            top.insert(name.to_string(), binding);
        }
    }

    /// Resolves a name: exact names first (innermost scope outwards), then `%r12` against a
    /// `%r<n>` range declaration.
    pub fn resolve(&self, name: &str) -> Option<Binding> {
        for scope in self.stack.iter().rev() {
            if let Some(b) = scope.get(name) {
                return Some(*b);
            }
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && digits < name.len() {
            let (prefix, number) = name.split_at(name.len() - digits);
            if let Ok(index) = number.parse::<u32>() {
                for scope in self.stack.iter().rev() {
                    if let Some(Binding::RegRange { base, count }) = scope.get(prefix) {
                        if index < *count {
                            return Some(Binding::Reg(base + index));
                        }
                    }
                }
            }
        }
        self.module.and_then(|m| m.get(name).copied())
    }
}
