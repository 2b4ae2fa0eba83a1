//! Unit tests of the linker over hand-built IR.

use super::*;
use crate::ir::{FunctionKind::*, Linkage::*, ScalarType::*, StateSpace};
use crate::symbols::test_ir::*;
use crate::symbols::SymbolTable;

fn names(module: &Module) -> Vec<(String, Linkage, bool)> {
    module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Function(f) => Some((f.name.clone(), f.linkage, f.body.is_some())),
            Item::Variable(v) => Some((v.name.clone(), v.linkage, v.linkage != Extern)),
            _ => None,
        })
        .collect()
}

fn caller() -> Module {
    module(vec![
        function(Func, Extern, "callee", vec![param(F32, "x")], None),
        function(
            Func,
            Extern,
            "vprintf",
            vec![param(U64, "f"), param(U64, "a")],
            None,
        ),
        global(Extern, StateSpace::Global, U32, "counter", 1),
        function(Func, Internal, "helper", vec![], Some(vec![])),
        function(
            Entry,
            Visible,
            "kernel",
            vec![],
            Some(vec![call(symbol("callee")), call(symbol("helper"))]),
        ),
    ])
}

fn callee() -> Module {
    module(vec![
        global(Visible, StateSpace::Global, U32, "counter", 1),
        function(Func, Internal, "helper", vec![], Some(vec![])),
        function(
            Func,
            Visible,
            "callee",
            vec![param(F32, "x")],
            Some(vec![call(symbol("helper"))]),
        ),
    ])
}

#[test]
fn caller_first_links_with_forward_declaration_and_renamed_helper() {
    let linked = link(&[caller(), callee()]).unwrap();
    assert_eq!(
        names(&linked),
        [
            ("vprintf".to_string(), Extern, false),
            ("callee".to_string(), Visible, false),
            ("counter".to_string(), Visible, true),
            ("helper".to_string(), Internal, true),
            ("kernel".to_string(), Visible, true),
            ("helper$m1".to_string(), Internal, true),
            ("callee".to_string(), Visible, true),
        ]
    );
    let table = SymbolTable::from_module(&linked);
    assert_eq!(table.get("callee").unwrap().callees, ["helper$m1"]);
    assert_eq!(table.get("kernel").unwrap().callees, ["callee", "helper"]);
}

#[test]
fn every_duplicate_and_unresolved_name_is_reported() {
    let a = module(vec![
        function(Func, Visible, "f", vec![], Some(vec![])),
        function(Func, Visible, "g", vec![], Some(vec![])),
        function(Func, Extern, "missing1", vec![], None),
    ]);
    let b = module(vec![
        function(Func, Visible, "f", vec![], Some(vec![])),
        function(Func, Visible, "g", vec![], Some(vec![])),
        function(Func, Extern, "missing2", vec![], None),
        global(Extern, StateSpace::Shared, B8, "dynamic_smem", 0),
    ]);
    let Err(LinkError::Symbols(problems)) = link(&[a.clone(), b.clone()]) else {
        panic!("expected symbol problems");
    };
    let described: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        described,
        [
            "`f` is defined in more than one module (0, 1)",
            "`g` is defined in more than one module (0, 1)",
            "`missing1` is declared in module 0 but defined in none",
            "`missing2` is declared in module 1 but defined in none",
        ]
    );
    let options = LinkOptions {
        allow_unresolved: true,
        ..LinkOptions::default()
    };
    assert!(matches!(
        link_with(&[a, b], &options),
        Err(LinkError::Symbols(p)) if p.len() == 2
    ));
}

#[test]
fn strong_beats_weak_and_largest_common_wins() {
    let weak = module(vec![
        function(Entry, Weak, "k", vec![param(U32, "n")], Some(vec![])),
        global(Common, StateSpace::Global, U32, "c", 4),
    ]);
    let strong = module(vec![
        function(
            Entry,
            Visible,
            "k",
            vec![param(U32, "n")],
            Some(vec![call(symbol("k"))]),
        ),
        global(Common, StateSpace::Global, U32, "c", 16),
    ]);
    let linked = link(&[weak.clone(), strong]).unwrap();
    let table = SymbolTable::from_module(&linked);
    assert_eq!(table.get("k").unwrap().linkage, Visible);
    assert_eq!(table.get("k").unwrap().callees, ["k"]);
    assert!(matches!(
        table.get("c").unwrap().kind,
        crate::symbols::SymbolKind::Global { size: 64, .. }
    ));
    let twice = link(&[weak.clone(), weak]).unwrap();
    assert_eq!(names(&twice).len(), 2);
}

#[test]
fn declarations_must_match_definitions() {
    let a = module(vec![function(
        Func,
        Extern,
        "f",
        vec![param(U32, "x")],
        None,
    )]);
    let b = module(vec![function(
        Func,
        Visible,
        "f",
        vec![param(U64, "x")],
        Some(vec![]),
    )]);
    let c = module(vec![global(Visible, StateSpace::Global, U32, "f", 1)]);
    let err = link(&[a.clone(), b.clone()]).unwrap_err();
    assert!(err.to_string().contains("other parameters"), "{err}");
    let err = link(&[b, c]).unwrap_err();
    assert!(err.to_string().contains("not the same kind"), "{err}");
}

#[test]
fn mangled_names_are_shown_demangled() {
    let a = module(vec![function(
        Func,
        Extern,
        "_Z3fooi",
        vec![param(S32, "x")],
        None,
    )]);
    let err = link(&[a]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "link failed: `_Z3fooi` (`foo(int)`) is declared in module 0 but defined in none"
    );
}
