//! The shared-memory layout of a module, exact per kernel.
//!
//! A block runs one kernel, so kernels' shared memory may overlap: each kernel's own `.shared`
//! declarations start after the *common* variables it reaches (module-scope variables it or its
//! callees name, and variables declared in the device functions it calls, which have one offset
//! for every kernel), and its block's shared memory is exactly that size plus the launch's
//! dynamic shared memory. A 256-byte kernel in a module with a 2048-byte one therefore faults at
//! byte 256, as on a GPU, rather than at 2304.
//!
//! Dynamic shared memory (unsized `extern .shared` arrays) starts after the kernel's static part.
//! A device function that names such an array would need one offset for every kernel; then every
//! kernel's dynamic part starts after the largest static part (the bound stays exact for the
//! kernels whose static part is that large, and is wider for the others).

use std::collections::{BTreeSet, HashMap};

use super::layout;
use super::{is_kernel, walk};
use crate::ir::{self, AddressBase, Operand, Span, StateSpace, Statement, Variable};
use crate::symbols::CallGraph;

/// Offsets of every sized `.shared` variable, and each kernel's static size and dynamic start.
#[derive(Debug, Default)]
pub(crate) struct SharedLayout {
    offsets: HashMap<(Option<usize>, Span, String), u64>,
    /// Per function: where its dynamic shared memory starts (kernels: their block's static size).
    dynamic_start: Vec<u64>,
    /// The largest dynamic start (what functions that are not kernels use).
    pub static_size: u64,
    /// Module-scope unsized `.shared` arrays (each kernel binds them to its dynamic start).
    pub module_unsized: Vec<String>,
}

pub(crate) fn is_shared(space: StateSpace) -> bool {
    matches!(
        space,
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
    )
}

impl SharedLayout {
    pub fn new(module: &ir::Module, functions: &[&ir::Function]) -> SharedLayout {
        let mut layout = SharedLayout::default();
        let mut dynamic_align = 16u64;
        let mut unsized_names = BTreeSet::new();
        let place = |key: (Option<usize>, &Variable), offset: &mut u64, l: &mut Self| {
            let (function, var) = key;
            *offset = offset.next_multiple_of(layout::variable_align(var));
            l.offsets
                .insert((function, var.span, var.name.clone()), *offset);
            *offset = offset.saturating_add(layout::variable_size(var));
            *offset
        };
        // Common variables: module scope, then those of functions that are not kernels.
        let mut common_end = 0u64;
        let mut ends: HashMap<&str, u64> = HashMap::new();
        for item in &module.items {
            if let ir::Item::Variable(var) = item {
                if !is_shared(var.space) {
                    continue;
                }
                if layout::is_unsized(var) {
                    dynamic_align = dynamic_align.max(layout::variable_align(var));
                    unsized_names.insert(var.name.as_str());
                    layout.module_unsized.push(var.name.clone());
                } else {
                    let end = place((None, var), &mut common_end, &mut layout);
                    ends.insert(var.name.as_str(), end);
                }
            }
        }
        let mut function_end: Vec<u64> = vec![0; functions.len()];
        let mut device_unsized = false;
        for (index, function) in functions.iter().enumerate() {
            let Some(body) = &function.body else { continue };
            if is_kernel(function) {
                continue;
            }
            walk(body, &mut |statement| {
                if let Statement::Variable(var) = statement {
                    if is_shared(var.space) {
                        if layout::is_unsized(var) {
                            dynamic_align = dynamic_align.max(layout::variable_align(var));
                            device_unsized = true;
                        } else {
                            let end = place((Some(index), var), &mut common_end, &mut layout);
                            function_end[index] = end;
                        }
                    }
                }
            });
            device_unsized |= names_in(body).iter().any(|n| unsized_names.contains(n));
        }
        // Each kernel: its own variables after the common ones it reaches.
        let calls = CallGraph::from_module(module);
        let by_name: HashMap<&str, usize> = functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let mut static_end = vec![0u64; functions.len()];
        for (index, function) in functions.iter().enumerate() {
            let Some(body) = &function.body else { continue };
            if !is_kernel(function) {
                continue;
            }
            let mut offset = 0u64;
            for name in calls.reachable_from(&function.name) {
                let Some(&callee) = by_name.get(name.as_str()) else {
                    continue;
                };
                offset = offset.max(function_end[callee]);
                if let Some(callee_body) = &functions[callee].body {
                    for symbol in names_in(callee_body) {
                        offset = offset.max(ends.get(symbol).copied().unwrap_or(0));
                    }
                }
            }
            for symbol in names_in(body) {
                offset = offset.max(ends.get(symbol).copied().unwrap_or(0));
            }
            walk(body, &mut |statement| {
                if let Statement::Variable(var) = statement {
                    if is_shared(var.space) {
                        if layout::is_unsized(var) {
                            dynamic_align = dynamic_align.max(layout::variable_align(var));
                        } else {
                            place((Some(index), var), &mut offset, &mut layout);
                        }
                    }
                }
            });
            static_end[index] = offset;
        }
        let largest = static_end
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(common_end)
            .next_multiple_of(dynamic_align);
        layout.static_size = largest;
        layout.dynamic_start = functions
            .iter()
            .zip(&static_end)
            .map(|(function, &end)| {
                if is_kernel(function) && !device_unsized {
                    end.next_multiple_of(dynamic_align)
                } else {
                    largest
                }
            })
            .collect();
        layout
    }

    /// The offset of a shared variable declared in `function` (None: module scope); unsized
    /// arrays start at `function`'s dynamic shared memory.
    pub fn offset_of(&self, function: Option<usize>, var: &Variable) -> u64 {
        self.offsets
            .get(&(function, var.span, var.name.clone()))
            .copied()
            .unwrap_or_else(|| self.dynamic_start(function))
    }

    /// Where dynamic shared memory starts for `function` (None: module scope).
    pub fn dynamic_start(&self, function: Option<usize>) -> u64 {
        function
            .and_then(|f| self.dynamic_start.get(f).copied())
            .unwrap_or(self.static_size)
    }

    /// Per function: its block's static shared size (where its dynamic part starts).
    pub fn block_static_sizes(&self) -> Vec<u64> {
        self.dynamic_start.clone()
    }
}

/// The names a body's instructions mention.
fn names_in(body: &[Statement]) -> BTreeSet<&str> {
    let mut named = BTreeSet::new();
    walk(body, &mut |statement| {
        if let Statement::Instruction(inst) = statement {
            inst.operands
                .iter()
                .for_each(|op| symbols_of(op, &mut named));
        }
    });
    named
}

/// Adds the names an operand mentions to `out`.
fn symbols_of<'a>(operand: &'a Operand, out: &mut BTreeSet<&'a str>) {
    match operand {
        Operand::Symbol(name) | Operand::SymbolOffset(name, _) => {
            out.insert(name);
        }
        Operand::Address(address) => {
            if let AddressBase::Symbol(name) = &address.base {
                out.insert(name);
            }
        }
        Operand::Vector(items) | Operand::List(items) | Operand::AddressList(items) => {
            items.iter().for_each(|item| symbols_of(item, out));
        }
        Operand::PredicatePair(inner, _) => symbols_of(inner, out),
        Operand::Register(_) | Operand::Not(_) | Operand::Immediate(_) | Operand::Sink => {}
    }
}
