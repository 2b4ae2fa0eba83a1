//! Session globals: every `__device__`/`__constant__` variable lives once, at one device address,
//! for the life of a session, and code refers to it through that address.
//!
//! A snippet's module-scope `.global`/`.const` definitions are loaded once in a module of their
//! own (so the backend allocates and initializes them); its `.extern` declarations name earlier
//! snippets' globals. Each function that uses a session global gets a prologue putting the
//! address into a register (`mov.b64 %chevron_g0, ADDRESS;`), and every reference (`[g+8]`,
//! `mov.u64 %rd1, g`) goes through that register. `.const` accesses become `.global` ones, since
//! the storage is ordinary device memory. The linked code of a kernel therefore holds no
//! variables but `.shared` ones, and any number of modules share the same storage.

use std::collections::{HashMap, HashSet};

use chevron_ptx::ir::{
    AddressBase, Function, Item, Linkage, Modifier, Module, Operand, RegisterRef, StateSpace,
    Statement, Variable,
};

/// The register prefix of the prologue.
const REGISTER: &str = "%chevron_g";

/// A snippet's module split for the session.
pub struct Split {
    /// Module-scope `.global`/`.const` definitions: storage to allocate.
    pub definitions: Vec<Variable>,
    /// Module-scope `.global`/`.const` `.extern` declarations: earlier snippets' globals.
    pub references: Vec<String>,
    /// Every other item (functions, `.shared` variables, …).
    pub rest: Vec<Item>,
}

/// Whether a module-scope variable is session storage.
fn is_session_global(variable: &Variable) -> bool {
    matches!(variable.space, StateSpace::Global | StateSpace::Const)
}

/// Splits `module`'s items into global definitions, global references and the rest.
pub fn split(module: Module) -> Split {
    let mut split = Split {
        definitions: Vec::new(),
        references: Vec::new(),
        rest: Vec::new(),
    };
    for item in module.items {
        match item {
            Item::Variable(v) if is_session_global(&v) && v.linkage == Linkage::Extern => {
                split.references.push(v.name)
            }
            Item::Variable(v) if is_session_global(&v) => split.definitions.push(v),
            other => split.rest.push(other),
        }
    }
    split
}

/// Rewrites `function`'s references to the variables of `addresses` into accesses through a
/// register holding the address. Returns the names of `shared` variables it refers to.
pub fn rewrite(
    function: &mut Function,
    addresses: &HashMap<String, u64>,
    shared: &HashSet<String>,
) -> Result<Vec<String>, String> {
    let Some(body) = function.body.as_mut() else {
        return Ok(Vec::new());
    };
    let mut rewriter = Rewriter {
        addresses,
        shared,
        used: Vec::new(),
        shared_used: Vec::new(),
    };
    rewriter.statements(body)?;
    if !rewriter.used.is_empty() {
        let prologue = prologue(&rewriter.used, addresses);
        body.splice(0..0, prologue);
    }
    Ok(rewriter.shared_used)
}

struct Rewriter<'a> {
    addresses: &'a HashMap<String, u64>,
    shared: &'a HashSet<String>,
    /// Globals used, in order of first use: global `used[i]` is in register `%chevron_g{i}`.
    used: Vec<String>,
    shared_used: Vec<String>,
}

impl Rewriter<'_> {
    fn statements(&mut self, statements: &mut [Statement]) -> Result<(), String> {
        for statement in statements {
            match statement {
                Statement::Instruction(instruction) => {
                    for modifier in &mut instruction.modifiers {
                        if *modifier == Modifier::Space(StateSpace::Const) {
                            *modifier = Modifier::Space(StateSpace::Global);
                        }
                    }
                    for operand in &mut instruction.operands {
                        self.operand(operand)?;
                    }
                }
                Statement::Block(inner) => self.statements(inner)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn operand(&mut self, operand: &mut Operand) -> Result<(), String> {
        match operand {
            Operand::Symbol(name) => {
                if let Some(register) = self.register(name) {
                    *operand = Operand::Register(register);
                }
            }
            Operand::SymbolOffset(name, offset) => {
                if self.addresses.contains_key(name.as_str()) {
                    return Err(format!(
                        "`{name}+{offset}` as a value is not supported for session globals"
                    ));
                }
                self.note_shared(name);
            }
            Operand::Address(address) => {
                if let AddressBase::Symbol(name) = &address.base {
                    if let Some(register) = self.register(name) {
                        address.base = AddressBase::Register(register);
                    }
                }
            }
            Operand::Vector(items) | Operand::List(items) | Operand::AddressList(items) => {
                for item in items {
                    self.operand(item)?;
                }
            }
            Operand::PredicatePair(value, _) => self.operand(value)?,
            _ => {}
        }
        Ok(())
    }

    /// The register holding global `name`'s address, or `None` when it is not a global.
    fn register(&mut self, name: &str) -> Option<RegisterRef> {
        if !self.addresses.contains_key(name) {
            self.note_shared(name);
            return None;
        }
        let index = match self.used.iter().position(|n| n == name) {
            Some(index) => index,
            None => {
                self.used.push(name.to_string());
                self.used.len() - 1
            }
        };
        Some(RegisterRef {
            name: format!("{REGISTER}{index}"),
            component: None,
        })
    }

    fn note_shared(&mut self, name: &str) {
        if self.shared.contains(name) && !self.shared_used.iter().any(|n| n == name) {
            self.shared_used.push(name.to_string());
        }
    }
}

/// `.reg .b64 %chevron_g<N>;` and one `mov.b64 %chevron_gI, ADDRESS;` per global.
fn prologue(used: &[String], addresses: &HashMap<String, u64>) -> Vec<Statement> {
    let mut text = format!(
        ".version 7.0\n.target sm_50\n.address_size 64\n.func prologue()\n{{\n\
         .reg .b64 {REGISTER}<{}>;\n",
        used.len()
    );
    for (index, name) in used.iter().enumerate() {
        text.push_str(&format!(
            "mov.b64 {REGISTER}{index}, {};\n",
            addresses[name.as_str()]
        ));
    }
    text.push_str("}\n");
    let module = chevron_ptx::parse(&text).expect("the prologue is well-formed PTX");
    match module.items.into_iter().next() {
        Some(Item::Function(Function {
            body: Some(body), ..
        })) => body,
        _ => unreachable!("the prologue module holds one function with a body"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
.version 9.0
.target sm_80
.address_size 64
.extern .global .align 4 .u32 counter;
.visible .const .align 4 .b8 coef[16];
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.global.u32 %r1, [counter+4];
    ld.const.u32 %r2, [coef];
    mov.u64 %rd2, counter;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

    #[test]
    fn references_go_through_a_register() {
        let split = split(chevron_ptx::parse(PTX).unwrap());
        assert_eq!(split.references, ["counter"]);
        assert_eq!(split.definitions.len(), 1);
        let addresses = HashMap::from([("counter".to_string(), 4096), ("coef".into(), 8192)]);
        let Some(Item::Function(mut function)) = split.rest.into_iter().next() else {
            panic!("the kernel is the remaining item");
        };
        rewrite(&mut function, &addresses, &HashSet::new()).unwrap();
        let module = Module {
            version: chevron_ptx::ir::Version { major: 9, minor: 0 },
            target: vec!["sm_80".into()],
            address_size: 64,
            items: vec![Item::Function(function)],
        };
        let text = chevron_ptx::print(&module);
        for expected in [
            "mov.b64 %chevron_g0, 4096;",
            "mov.b64 %chevron_g1, 8192;",
            "ld.global.u32 %r1, [%chevron_g0+4];",
            "ld.global.u32 %r2, [%chevron_g1];",
            "mov.u64 %rd2, %chevron_g0;",
        ] {
            assert!(text.contains(expected), "{expected} in\n{text}");
        }
        assert!(
            !text.contains("counter") && !text.contains("coef"),
            "{text}"
        );
    }
}
