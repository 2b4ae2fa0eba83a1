//! Small constructors of IR for the unit tests of this module.

#![allow(dead_code)]

use crate::ir::*;

pub fn module(items: Vec<Item>) -> Module {
    Module {
        version: Version { major: 8, minor: 0 },
        target: vec!["sm_80".into()],
        address_size: 64,
        items,
    }
}

pub fn param(ty: ScalarType, name: &str) -> Param {
    Param {
        space: StateSpace::Param,
        align: None,
        ty,
        vector: None,
        array: Vec::new(),
        ptr: None,
        name: name.into(),
    }
}

pub fn function(
    kind: FunctionKind,
    linkage: Linkage,
    name: &str,
    params: Vec<Param>,
    body: Option<Vec<Statement>>,
) -> Item {
    Item::Function(Function {
        kind,
        linkage,
        name: name.into(),
        returns: Vec::new(),
        params,
        noreturn: false,
        directives: Vec::new(),
        body,
        span: Span::default(),
    })
}

pub fn global(linkage: Linkage, space: StateSpace, ty: ScalarType, name: &str, n: u64) -> Item {
    Item::Variable(Variable {
        linkage,
        space,
        align: None,
        vector: None,
        ty,
        name: name.into(),
        range: None,
        array: vec![Some(n)],
        init: None,
        attributes: Vec::new(),
        span: Span::default(),
    })
}

pub fn instruction(opcode: KnownOpcode, operands: Vec<Operand>) -> Statement {
    Statement::Instruction(Instruction {
        guard: None,
        opcode: Opcode::Known(opcode),
        modifiers: Vec::new(),
        operands,
        span: Span::default(),
    })
}

pub fn call(target: Operand) -> Statement {
    instruction(
        KnownOpcode::Call,
        vec![Operand::List(vec![]), target, Operand::List(vec![])],
    )
}

pub fn symbol(name: &str) -> Operand {
    Operand::Symbol(name.into())
}

pub fn register(name: &str) -> Operand {
    Operand::Register(RegisterRef {
        name: name.into(),
        component: None,
    })
}
