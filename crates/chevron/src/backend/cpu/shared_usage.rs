//! Static shared memory of a kernel, counted as a GPU counts it.
//!
//! A kernel's static shared memory is its own `.shared` declarations, those of the device
//! functions it can reach, and the module-scope `.shared` variables that any of them names.
//! Compilers such as clang put every `__shared__` variable at module scope, so counting all of
//! a module's shared variables for each kernel would overstate the use of modules with many
//! kernels.

use std::collections::{BTreeSet, HashMap};

use chevron_ptx::ir::{self, AddressBase, Item, Operand, StateSpace, Statement, Variable};
use chevron_ptx::symbols::{self, CallGraph};

/// Computes the static shared memory of the kernels of one module.
pub(crate) struct SharedUsage<'m> {
    calls: CallGraph,
    functions: HashMap<&'m str, &'m ir::Function>,
    module_shared: Vec<&'m Variable>,
}

impl<'m> SharedUsage<'m> {
    /// Prepares the call graph and the module-scope shared variables of `module`.
    pub fn new(module: &'m ir::Module) -> SharedUsage<'m> {
        let mut functions = HashMap::new();
        let mut module_shared = Vec::new();
        for item in &module.items {
            match item {
                Item::Function(f) if f.body.is_some() => {
                    functions.insert(f.name.as_str(), f);
                }
                Item::Variable(var) if is_shared(var.space) => module_shared.push(var),
                _ => {}
            }
        }
        SharedUsage {
            calls: CallGraph::from_module(module),
            functions,
            module_shared,
        }
    }

    /// Bytes of static shared memory of `kernel` (each variable aligned as declared).
    pub fn static_bytes(&self, kernel: &str) -> u32 {
        let mut named = BTreeSet::new();
        let mut declared = Vec::new();
        for name in self.calls.reachable_from(kernel) {
            let Some(body) = self
                .functions
                .get(name.as_str())
                .and_then(|f| f.body.as_ref())
            else {
                continue;
            };
            visit(body, &mut |statement| match statement {
                Statement::Variable(var) if is_shared(var.space) => declared.push(var),
                Statement::Instruction(inst) => inst.operands.iter().for_each(|op| {
                    symbols_of(op, &mut named);
                }),
                _ => {}
            });
        }
        let used_module = self
            .module_shared
            .iter()
            .copied()
            .filter(|var| named.contains(var.name.as_str()));
        let bytes = declared
            .into_iter()
            .chain(used_module)
            .fold(0u64, |offset, var| {
                let (size, align) = symbols::variable_size_align(var);
                offset
                    .next_multiple_of(u64::from(align.max(1)))
                    .saturating_add(size)
            });
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }
}

fn is_shared(space: StateSpace) -> bool {
    matches!(
        space,
        StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
    )
}

/// Calls `f` on every statement of `body`, nested blocks included.
fn visit<'a>(body: &'a [Statement], f: &mut dyn FnMut(&'a Statement)) {
    for statement in body {
        f(statement);
        if let Statement::Block(inner) = statement {
            visit(inner, f);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_KERNELS: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.shared .align 4 .b8 tile_a[4096];
.shared .align 8 .b8 tile_b[8192];
.shared .align 4 .b8 unused[65536];
.func helper()
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, tile_b;
	ret;
}
.visible .entry first()
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 local_tile[100];
	ld.shared.u32 %r1, [tile_a+4];
	call.uni helper, ();
	ret;
}
.visible .entry second()
{
	.reg .b32 %r<2>;
	st.shared.u32 [tile_a], %r1;
	ret;
}
"#;

    #[test]
    fn kernels_count_what_they_and_their_callees_use() {
        let module = chevron_ptx::parse(TWO_KERNELS).unwrap();
        let usage = SharedUsage::new(&module);
        // local_tile at 0 (100 bytes), tile_a at 100, tile_b at 4200 (8-aligned); `unused` is not
        // named by either kernel.
        assert_eq!(usage.static_bytes("first"), 4200 + 8192);
        assert_eq!(usage.static_bytes("second"), 4096);
        assert_eq!(usage.static_bytes("missing"), 0);
    }
}
