//! Device functions reached from instrumented kernels: which ones (direct `call`s to functions
//! defined in the same module, transitively), and their instrumented copies.
//!
//! Each reached function gets a copy, `chevron_hooked_NAME`, local to the module, which the
//! instrumented kernels and copies call instead of the original: kernels that are not selected
//! keep calling the untouched original. A copy reads `launch` from the module-scope `.shared`
//! variable [`LAUNCH_SHARED`], which every instrumented kernel that reaches a copy writes at its
//! entry (all threads of a thread block belong to one launch and write the same value).

use std::collections::{BTreeSet, HashMap};

use crate::ir::{Function, FunctionKind, Item, KnownOpcode, Linkage, Module, Operand, Statement};

/// The module-scope `.shared .b64` holding `launch` for the copies of device functions.
pub const LAUNCH_SHARED: &str = "chevron_launch_shared";

/// The names instrumentation adds to a module (the `.shared` variable, the copies of device
/// functions, the registers of inserted code), all starting with one prefix that no name of
/// the module contains: `chevron_` ([`LAUNCH_SHARED`], `chevron_hooked_NAME`, `%chevron_t`),
/// else `chevron1_`, `chevron2_`… A program's own `chevron_launch_shared` is then left alone.
pub(super) struct Hidden {
    prefix: String,
}

impl Hidden {
    /// Names for `module`, chosen after looking at its printed text.
    pub(super) fn for_module(module: &crate::ir::Module) -> Hidden {
        let text = crate::print(module);
        let prefix = std::iter::once("chevron_".to_string())
            .chain((1u32..).map(|n| format!("chevron{n}_")))
            .find(|prefix| !text.contains(prefix.as_str()))
            .unwrap_or_default();
        Hidden { prefix }
    }

    /// The `.shared` variable holding `launch` for device functions.
    pub(super) fn launch_shared(&self) -> String {
        format!("{}launch_shared", self.prefix)
    }

    /// The instrumented copy of device function `name`.
    pub(super) fn hooked(&self, name: &str) -> String {
        format!("{}hooked_{name}", self.prefix)
    }

    /// The inserted code's register `name` (`launch`, `block`, `t`, `address`).
    pub(super) fn register(&self, name: &str) -> String {
        format!("%{}{name}", self.prefix)
    }
}

/// The direct call target of `statement`'s `call`, if it is one.
pub(super) fn call_target(inst: &crate::ir::Instruction) -> Option<&str> {
    if inst.opcode.known() != Some(KnownOpcode::Call) {
        return None;
    }
    inst.operands.iter().find_map(|o| match o {
        Operand::Symbol(name) => Some(name.as_str()),
        _ => None,
    })
}

fn direct_calls(statements: &[Statement], out: &mut BTreeSet<String>) {
    for statement in statements {
        match statement {
            Statement::Instruction(inst) => {
                if let Some(target) = call_target(inst) {
                    out.insert(target.to_string());
                }
            }
            Statement::Block(inner) => direct_calls(inner, out),
            _ => {}
        }
    }
}

/// The call graph of the module's device functions with bodies, and of its kernels.
pub(super) struct CallGraph {
    calls: HashMap<String, BTreeSet<String>>,
    /// Device functions (`.func`) with a body, by name.
    defined: BTreeSet<String>,
}

impl CallGraph {
    pub(super) fn new(module: &Module) -> CallGraph {
        let mut calls = HashMap::new();
        let mut defined = BTreeSet::new();
        for item in &module.items {
            let Item::Function(function) = item else {
                continue;
            };
            let Some(body) = &function.body else {
                continue;
            };
            if function.kind == FunctionKind::Func {
                defined.insert(function.name.clone());
            }
            let mut targets = BTreeSet::new();
            direct_calls(body, &mut targets);
            calls.insert(function.name.clone(), targets);
        }
        CallGraph { calls, defined }
    }

    /// The device functions with bodies that `roots` reach through direct calls.
    pub(super) fn reached_from<'a>(
        &self,
        roots: impl IntoIterator<Item = &'a str>,
    ) -> BTreeSet<String> {
        let mut reached = BTreeSet::new();
        let mut todo: Vec<&str> = roots.into_iter().collect();
        while let Some(name) = todo.pop() {
            for target in self.calls.get(name).into_iter().flatten() {
                if self.defined.contains(target) && reached.insert(target.clone()) {
                    todo.push(target);
                }
            }
        }
        reached
    }
}

/// A local copy of `function` named by [`Hidden::hooked`], without a body when `declaration`.
pub(super) fn hooked_copy(function: &Function, declaration: bool, hidden: &Hidden) -> Function {
    let mut copy = function.clone();
    copy.name = hidden.hooked(&function.name);
    copy.linkage = Linkage::Internal;
    if declaration {
        copy.body = None;
    }
    copy
}
