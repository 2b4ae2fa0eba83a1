//! The parser builds the IR the other components rely on, construct by construct.

use chevron_ptx::ir::*;
use chevron_ptx::parse;

/// Wraps body lines into a kernel and returns its statements.
fn body(lines: &str) -> Vec<Statement> {
    let text =
        format!(".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{{\n{lines}\n}}\n");
    let module = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match module.items.into_iter().next() {
        Some(Item::Function(f)) => f.body.expect("kernel has a body"),
        other => panic!("expected a function, got {other:?}"),
    }
}

/// The single instruction of a body.
fn inst(line: &str) -> Instruction {
    match body(line).into_iter().next() {
        Some(Statement::Instruction(i)) => i,
        other => panic!("expected an instruction, got {other:?}"),
    }
}

fn reg(name: &str) -> Operand {
    Operand::Register(RegisterRef {
        name: name.into(),
        component: None,
    })
}

#[test]
fn header_and_kernel_signature() {
    let m = parse(
        ".version 9.0\n.target sm_90a, debug\n.address_size 32\n\
         .visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[24])\n\
         .maxntid 128, 1, 1\n.reqnctapercluster 2\n.explicitcluster\n{ ret; }",
    )
    .unwrap();
    assert_eq!(m.version, Version { major: 9, minor: 0 });
    assert_eq!(m.target, ["sm_90a", "debug"]);
    assert_eq!(m.address_size, 32);
    let Item::Function(f) = &m.items[0] else {
        panic!("not a function")
    };
    assert_eq!(
        (f.kind, f.linkage, f.name.as_str()),
        (FunctionKind::Entry, Linkage::Visible, "k")
    );
    assert_eq!(f.span, Span { line: 4, col: 1 });
    assert_eq!(
        f.params[0].ptr,
        Some(PtrAttr {
            space: Some(StateSpace::Global),
            align: Some(16)
        })
    );
    assert_eq!(
        (f.params[1].align, f.params[1].ty),
        (Some(8), ScalarType::B8)
    );
    assert_eq!(f.params[1].array, [Some(24)]);
    assert_eq!(
        f.directives,
        [
            FunctionDirective::Performance {
                name: "maxntid".into(),
                values: vec![128, 1, 1]
            },
            FunctionDirective::Performance {
                name: "reqnctapercluster".into(),
                values: vec![2]
            },
            FunctionDirective::Performance {
                name: "explicitcluster".into(),
                values: vec![]
            },
        ]
    );
}

#[test]
fn func_declaration_with_returns_and_noreturn() {
    let m = parse(
        ".version 8.0\n.target sm_80\n\
         .extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n\
         .extern .func __assertfail(.param .b64 m) .noreturn;",
    )
    .unwrap();
    let Item::Function(f) = &m.items[0] else {
        panic!()
    };
    assert_eq!(f.linkage, Linkage::Extern);
    assert_eq!(f.returns[0].name, "func_retval0");
    assert_eq!(f.params.len(), 2);
    assert!(f.body.is_none());
    let Item::Function(g) = &m.items[1] else {
        panic!()
    };
    assert!(g.noreturn);
    assert_eq!(m.address_size, 64);
}

#[test]
fn module_variables_and_initializers() {
    let m = parse(
        ".version 8.0\n.target sm_80\n\
         .global .align 4 .b8 bytes[3] = {1, 0x2, -3};\n\
         .const .align 8 .u64 p[2] = {generic(bytes)+1, bytes};\n\
         .extern .shared .align 16 .b8 smem[];\n\
         .global .attribute(.managed) .align 4 .u32 m;\n\
         .global .align 8 .v2 .f32 v = {0f3F800000, 1.0};",
    )
    .unwrap();
    let vars: Vec<&Variable> = m
        .items
        .iter()
        .map(|i| match i {
            Item::Variable(v) => v,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        vars[0].init,
        Some(Initializer::Array(vec![
            Initializer::Immediate(Immediate::Int(1)),
            Initializer::Immediate(Immediate::Int(2)),
            Initializer::Immediate(Immediate::Int(-3)),
        ]))
    );
    assert_eq!(
        vars[1].init,
        Some(Initializer::Array(vec![
            Initializer::Address {
                symbol: "bytes".into(),
                generic: true,
                offset: 1
            },
            Initializer::Address {
                symbol: "bytes".into(),
                generic: false,
                offset: 0
            },
        ]))
    );
    assert_eq!(
        (vars[2].linkage, vars[2].array.as_slice()),
        (Linkage::Extern, &[None][..])
    );
    assert_eq!(vars[3].attributes, ["managed"]);
    assert_eq!(vars[4].vector, Some(2));
    assert_eq!(
        vars[4].init,
        Some(Initializer::Array(vec![
            Initializer::Immediate(Immediate::F32(0x3F80_0000)),
            Initializer::Immediate(Immediate::F64(1.0f64.to_bits())),
        ]))
    );
}

#[test]
fn register_declarations_keep_ranges_unexpanded() {
    let stmts = body(".reg .b32 %r<4000000000>;\n.reg .pred p, q;");
    let Statement::Variable(v) = &stmts[0] else {
        panic!()
    };
    assert_eq!(
        (v.name.as_str(), v.range, v.space),
        ("%r", Some(4_000_000_000), StateSpace::Reg)
    );
    assert_eq!(stmts.len(), 3);
}

#[test]
fn modifiers_are_classified_by_opcode() {
    let mul = inst("mul.hi.u32 %r1, %r2, %r3;");
    assert_eq!(mul.modifiers[0], Modifier::Flag(Flag::Hi));
    let setp = inst("setp.lo.and.u32 %p1, %r2, %r3, %p2;");
    assert_eq!(
        setp.modifiers,
        [
            Modifier::Compare(Compare::Lo),
            Modifier::Op(Op::And),
            Modifier::Type(ScalarType::U32)
        ]
    );
    let ld = inst("ld.global.nc.L2::128B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];");
    assert_eq!(ld.space(), Some(StateSpace::Global));
    assert!(ld.has(Flag::Nc));
    assert_eq!(ld.modifiers[2], Modifier::Other("L2::128B".into()));
    assert_eq!(ld.vector(), Some(4));
    let atom = inst("atom.acq_rel.gpu.shared::cta.add.u32 %r1, [%r2], 1;");
    assert_eq!(atom.modifiers[0], Modifier::Semantics(Semantics::AcqRel));
    assert_eq!(atom.modifiers[1], Modifier::Scope(Scope::Gpu));
    assert_eq!(atom.space(), Some(StateSpace::SharedCta));
    assert_eq!(atom.ops().collect::<Vec<_>>(), [Op::Add]);
    let shfl = inst("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;");
    assert_eq!(shfl.modifiers[1], Modifier::Shuffle(ShuffleMode::Down));
    assert_eq!(
        shfl.operands[0],
        Operand::PredicatePair(
            Box::new(reg("%r1")),
            RegisterRef {
                name: "%p1".into(),
                component: None
            }
        )
    );
    assert_eq!(shfl.operands[4], Operand::Immediate(Immediate::Int(-1)));
    let cvt = inst("cvt.rn.f32.s32 %f1, %r1;");
    assert_eq!(cvt.rounding(), Some(Rounding::Rn));
    let wgmma = inst(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, 1, 1, 1, 0, 1;",
    );
    assert_eq!(wgmma.opcode, Opcode::Known(KnownOpcode::Wgmma));
    assert_eq!(wgmma.modifiers[0], Modifier::Other("mma_async".into()));
    let unknown = inst("frobnicate.wide %r1;");
    assert_eq!(unknown.opcode, Opcode::Other("frobnicate".into()));
}

#[test]
fn operands_of_every_shape() {
    let st = inst("@!%p1 st.global.v2.f32 [%rd1+-8], {%f1, _};");
    assert_eq!(
        st.guard,
        Some(Guard {
            register: "%p1".into(),
            negated: true
        })
    );
    assert_eq!(
        st.operands[0],
        Operand::Address(Address {
            base: AddressBase::Register(RegisterRef {
                name: "%rd1".into(),
                component: None
            }),
            offset: -8
        })
    );
    assert_eq!(
        st.operands[1],
        Operand::Vector(vec![reg("%f1"), Operand::Sink])
    );
    let mov = inst("mov.u32 %r1, %ctaid.y;");
    assert_eq!(
        mov.operands[1],
        Operand::Register(RegisterRef {
            name: "%ctaid".into(),
            component: Some(1)
        })
    );
    let sym = inst("mov.u64 %rd1, table+4;");
    assert_eq!(sym.operands[1], Operand::SymbolOffset("table".into(), 4));
    let abs = inst("ld.shared.u32 %r1, [1024];");
    assert_eq!(
        abs.operands[1],
        Operand::Address(Address {
            base: AddressBase::Absolute,
            offset: 1024
        })
    );
    let not = inst("and.pred %p1, %p2, !%p3;");
    assert!(matches!(&not.operands[2], Operand::Not(r) if r.name == "%p3"));
    let call = inst("call.uni (retval0), _Z3fooi, (param0, param1);");
    assert_eq!(
        call.operands,
        [
            Operand::List(vec![Operand::Symbol("retval0".into())]),
            Operand::Symbol("_Z3fooi".into()),
            Operand::List(vec![
                Operand::Symbol("param0".into()),
                Operand::Symbol("param1".into())
            ]),
        ]
    );
    let tex = inst("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
    assert_eq!(
        tex.operands[1],
        Operand::AddressList(vec![
            reg("%rd1"),
            Operand::Vector(vec![reg("%f5"), reg("%f6")])
        ])
    );
}

#[test]
fn bare_register_names_are_registers_in_their_scope_only() {
    let stmts = body("{\n.reg .pred p;\n@p mov.b32 %r1, p;\n}\nmov.b32 %r1, p;");
    let Statement::Block(inner) = &stmts[0] else {
        panic!()
    };
    let Statement::Instruction(i) = &inner[1] else {
        panic!()
    };
    assert_eq!(i.operands[1], reg("p"));
    let Statement::Instruction(outside) = &stmts[1] else {
        panic!()
    };
    assert_eq!(outside.operands[1], Operand::Symbol("p".into()));
}

#[test]
fn labels_prototypes_loc_and_blocks() {
    let stmts = body(
        "$L__BB0_1:\n\
         proto: .callprototype (.param .b32 _) _ (.param .b64 _);\n\
         call (retval0), %rd5, (param0), proto;\n\
         .loc 1 22 5, function_name $L__info_string0, inlined_at 1 30 7 // comment\n\
         .pragma \"nounroll\";\n\
         ts: .branchtargets $L__BB0_1, $L__BB0_1;\n\
         { { ret; } }",
    );
    assert_eq!(stmts[0], Statement::Label("$L__BB0_1".into()));
    let Statement::CallPrototype {
        label,
        returns,
        params,
        noreturn,
    } = &stmts[1]
    else {
        panic!("{:?}", stmts[1])
    };
    assert_eq!(
        (label.as_str(), returns.len(), params.len(), *noreturn),
        ("proto", 1, 1, false)
    );
    assert_eq!(params[0].name, "_");
    assert_eq!(
        stmts[3],
        Statement::Loc {
            file: 1,
            line: 22,
            col: 5,
            extra: ", function_name $L__info_string0, inlined_at 1 30 7".into()
        }
    );
    assert_eq!(stmts[4], Statement::Pragma(vec!["nounroll".into()]));
    assert!(matches!(&stmts[5], Statement::BranchTargets { targets, .. } if targets.len() == 2));
    assert!(
        matches!(&stmts[6], Statement::Block(inner) if matches!(&inner[0], Statement::Block(_)))
    );
}

#[test]
fn module_level_file_section_alias() {
    let m = parse(
        ".version 8.0\n.target sm_80\n.file 1 \"a.cu\", 123, 456\n\
         .func f() { ret; }\n.alias g, f;\n.section .debug_str { $L__info_string0:\n.b8 102,0 }",
    )
    .unwrap();
    assert_eq!(
        m.items[0],
        Item::File {
            index: 1,
            path: "a.cu".into(),
            extra: vec![123, 456]
        }
    );
    assert_eq!(
        m.items[2],
        Item::Alias {
            alias: "g".into(),
            aliasee: "f".into()
        }
    );
    assert_eq!(
        m.items[3],
        Item::Section {
            name: ".debug_str".into(),
            body: " $L__info_string0:\n.b8 102,0 ".into()
        }
    );
}

#[test]
fn mask_initializers_of_packed_aggregates() {
    let m = parse(
        ".version 7.8\n.target sm_80\n.global .u32 p;\n\
         .global .align 1 .u8 s[3] = {12, 0xFF00(generic(p)+4), 0xFF(p)};",
    )
    .unwrap();
    let Item::Variable(v) = &m.items[1] else {
        panic!()
    };
    let Some(Initializer::Array(items)) = &v.init else {
        panic!("{:?}", v.init)
    };
    assert_eq!(
        items[1],
        Initializer::Mask {
            mask: 0xFF00,
            value: Box::new(Initializer::Address {
                symbol: "p".into(),
                generic: true,
                offset: 4
            })
        }
    );
    assert!(matches!(&items[2], Initializer::Mask { mask: 0xFF, .. }));
}

#[test]
fn many_bare_registers_are_all_classified() {
    let n = 20_000;
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&format!(".reg .b32 v{i};\n"));
    }
    for i in 0..n {
        lines.push_str(&format!("mov.b32 v{i}, w{i};\n"));
    }
    let stmts = body(&lines);
    let Statement::Instruction(last) = &stmts[2 * n - 1] else {
        panic!()
    };
    assert_eq!(last.operands[0], reg(&format!("v{}", n - 1)));
    assert_eq!(last.operands[1], Operand::Symbol(format!("w{}", n - 1)));
}

#[test]
fn instructions_and_operands_display_as_ptx() {
    let i = inst("@!%p1   ld.global.nc.v2.f32 {%f1,_},[%rd1+-8] ;");
    assert_eq!(
        i.to_string(),
        "@!%p1 ld.global.nc.v2.f32 {%f1, _}, [%rd1+-8];"
    );
    assert_eq!(i.operands[1].to_string(), "[%rd1+-8]");
    let m = parse(".version 8.0\n.target sm_80\n.entry k() { ret; }").unwrap();
    assert_eq!(m.to_string(), chevron_ptx::print(&m));
}
