//! Who calls whom: direct `call` targets, indirect calls, and functions whose address is taken.
//!
//! A `call` names its target directly (`call.uni (r), foo, (a);`) or through a register
//! (`call (r), %rd4, (a), proto;`). An indirect call may reach any function whose address is taken
//! somewhere in the module (`mov.u64 %rd1, foo;`, or a variable initialized with `foo`), so
//! [`CallGraph::reachable_from`] follows those too.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ir::{
    AddressBase, Initializer, Instruction, Item, KnownOpcode, Module, Operand, Statement,
};

/// The calls made by one function.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FunctionCalls {
    /// The function's name.
    pub name: String,
    /// Direct `call` targets in order of first appearance, without repeats.
    pub direct: Vec<String>,
    /// Whether the function makes a call through a register, whose target is unknown.
    pub indirect: bool,
}

/// The call graph of one module.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CallGraph {
    /// One entry per defined function, in source order.
    pub functions: Vec<FunctionCalls>,
    /// Functions whose address is taken (possible targets of indirect calls), sorted.
    pub address_taken: BTreeSet<String>,
    /// Index into `functions` by name, so that lookups stay constant-time in modules with tens
    /// of thousands of functions.
    by_name: HashMap<String, usize>,
}

impl CallGraph {
    /// Builds the call graph of `module`.
    pub fn from_module(module: &Module) -> CallGraph {
        let function_names: HashSet<&str> = module
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Function(f) => Some(f.name.as_str()),
                Item::Alias { alias, .. } => Some(alias.as_str()),
                _ => None,
            })
            .collect();
        let mut graph = CallGraph::default();
        for item in &module.items {
            match item {
                Item::Function(f) => {
                    let Some(body) = &f.body else { continue };
                    let mut calls = FunctionCalls {
                        name: f.name.clone(),
                        ..FunctionCalls::default()
                    };
                    let mut walker = Walker {
                        functions: &function_names,
                        calls: &mut calls,
                        address_taken: &mut graph.address_taken,
                    };
                    walker.statements(body);
                    graph
                        .by_name
                        .entry(calls.name.clone())
                        .or_insert(graph.functions.len());
                    graph.functions.push(calls);
                }
                Item::Variable(v) => {
                    if let Some(init) = &v.init {
                        initializer_addresses(init, &function_names, &mut graph.address_taken);
                    }
                }
                _ => {}
            }
        }
        graph
    }

    /// The calls made by `name`, if it is a defined function.
    pub fn calls(&self, name: &str) -> Option<&FunctionCalls> {
        let &index = self.by_name.get(name)?;
        self.functions.get(index)
    }

    /// Every function reachable from `root` (itself included) through direct calls and, where a
    /// function calls indirectly, through every function whose address is taken. Sorted.
    pub fn reachable_from(&self, root: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![root.to_string()];
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let Some(calls) = self.calls(&name) else {
                continue;
            };
            stack.extend(calls.direct.iter().cloned());
            if calls.indirect {
                stack.extend(self.address_taken.iter().cloned());
            }
        }
        seen
    }
}

/// Walks one function body.
struct Walker<'a> {
    functions: &'a HashSet<&'a str>,
    calls: &'a mut FunctionCalls,
    address_taken: &'a mut BTreeSet<String>,
}

impl Walker<'_> {
    fn statements(&mut self, statements: &[Statement]) {
        for statement in statements {
            match statement {
                Statement::Instruction(inst) => self.instruction(inst),
                Statement::Block(inner) => self.statements(inner),
                // `.calltargets` lists the functions an indirect call may reach.
                Statement::CallTargets { targets, .. } => {
                    for target in targets {
                        if self.functions.contains(target.as_str()) {
                            self.address_taken.insert(target.clone());
                        }
                    }
                }
                Statement::Variable(v) => {
                    if let Some(init) = &v.init {
                        initializer_addresses(init, self.functions, self.address_taken);
                    }
                }
                _ => {}
            }
        }
    }

    fn instruction(&mut self, inst: &Instruction) {
        let target = if inst.opcode.known() == Some(KnownOpcode::Call) {
            call_target(inst)
        } else {
            None
        };
        match target {
            Some(Operand::Symbol(name)) => push_unique(&mut self.calls.direct, name),
            Some(_) => self.calls.indirect = true,
            None => {}
        }
        for (i, operand) in inst.operands.iter().enumerate() {
            let is_target = target.is_some() && i == call_target_index(inst).unwrap_or(usize::MAX);
            if !is_target {
                self.operand_addresses(operand);
            }
        }
    }

    fn operand_addresses(&mut self, operand: &Operand) {
        let name = match operand {
            Operand::Symbol(name) | Operand::SymbolOffset(name, _) => name,
            Operand::Address(a) => match &a.base {
                AddressBase::Symbol(name) => name,
                _ => return,
            },
            Operand::Vector(items) | Operand::List(items) | Operand::AddressList(items) => {
                items.iter().for_each(|o| self.operand_addresses(o));
                return;
            }
            _ => return,
        };
        if self.functions.contains(name.as_str()) {
            self.address_taken.insert(name.clone());
        }
    }
}

fn push_unique(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|n| n == name) {
        names.push(name.to_string());
    }
}

/// The index of a `call`'s target: the first operand that is not a parenthesised list (the
/// return values come before it, the arguments and prototype after).
fn call_target_index(inst: &Instruction) -> Option<usize> {
    inst.operands
        .iter()
        .position(|o| !matches!(o, Operand::List(_)))
}

fn call_target(inst: &Instruction) -> Option<&Operand> {
    call_target_index(inst).map(|i| &inst.operands[i])
}

/// Records functions named in a variable initializer (function-pointer tables).
fn initializer_addresses(
    init: &Initializer,
    functions: &HashSet<&str>,
    address_taken: &mut BTreeSet<String>,
) {
    match init {
        Initializer::Address { symbol, .. } if functions.contains(symbol.as_str()) => {
            address_taken.insert(symbol.clone());
        }
        Initializer::Array(items) => items
            .iter()
            .for_each(|i| initializer_addresses(i, functions, address_taken)),
        Initializer::Mask { value, .. } => initializer_addresses(value, functions, address_taken),
        _ => {}
    }
}
