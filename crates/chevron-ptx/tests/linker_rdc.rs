//! Linking real `-rdc` PTX (NVRTC and nvcc 13.0, corpus/): the caller's `.extern` functions and
//! global resolve against the callee, the result prints and parses back, and every duplicate or
//! unresolved name is reported; internal clashes and weak template instances between modules.

use std::path::Path;

use chevron_ptx::ir::{FunctionKind, Item, Linkage, Module};
use chevron_ptx::linker::{check_symbols, link_with, LinkOptions, SymbolProblem};
use chevron_ptx::symbols::SymbolTable;
use chevron_ptx::{link, parse, print, LinkError};

fn corpus(path: &str) -> Module {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(path);
    parse(&std::fs::read_to_string(full).unwrap()).unwrap()
}

const EXTERNS: [&str; 4] = [
    "rdc_scale",
    "_Z9rdc_clampiii",
    "_Z8rdc_bumpi",
    "rdc_counter",
];

/// Names of the items, in order, with whether each is a definition.
fn outline(module: &Module) -> Vec<(String, bool)> {
    module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Function(f) => Some((f.name.clone(), f.body.is_some())),
            Item::Variable(v) => Some((v.name.clone(), v.linkage != Linkage::Extern)),
            _ => None,
        })
        .collect()
}

fn check_linked(linked: &Module) {
    let printed = print(linked);
    assert!(
        print(&parse(&printed).unwrap()) == printed,
        "print/parse round trip"
    );
    let table = SymbolTable::from_module(linked);
    for name in EXTERNS {
        let symbol = table.get(name).unwrap();
        assert!(symbol.defined, "{name}");
        assert_ne!(symbol.linkage, Linkage::Extern, "{name}");
    }
    let kernels: Vec<&str> = table.kernels().map(|k| k.name.as_str()).collect();
    assert_eq!(kernels.len(), 3, "{kernels:?}");
    for k in ["rdc_apply", "rdc_read_counter", "rdc_reset"] {
        assert!(kernels.contains(&k), "{k}");
    }
    assert_eq!(
        table.get("rdc_apply").unwrap().callees,
        ["rdc_scale", "_Z9rdc_clampiii", "_Z8rdc_bumpi"]
    );
    // Each name is defined exactly once.
    let outline = outline(linked);
    for name in EXTERNS {
        let definitions = outline.iter().filter(|(n, d)| n == name && *d).count();
        assert_eq!(definitions, 1, "{name}");
    }
}

#[test]
fn callee_then_caller() {
    for arch in ["compute_80", "compute_90"] {
        let callee = corpus(&format!("nvrtc/{arch}/rdc_callee.ptx"));
        let caller = corpus(&format!("nvrtc/{arch}/rdc_caller.ptx"));
        let linked = link(&[callee.clone(), caller]).unwrap();
        check_linked(&linked);
        assert_eq!(linked.version, callee.version);
        assert_eq!(linked.target, callee.target);
        // Definitions come first, so nothing needs declaring ahead.
        assert!(outline(&linked).iter().all(|(_, defined)| *defined));
    }
}

#[test]
fn caller_then_callee_declares_functions_ahead() {
    let linked = link(&[
        corpus("nvrtc/compute_80/rdc_caller.ptx"),
        corpus("nvrtc/compute_80/rdc_callee.ptx"),
    ])
    .unwrap();
    check_linked(&linked);
    let outline = outline(&linked);
    let position = |name: &str, defined: bool| {
        outline
            .iter()
            .position(|(n, d)| n == name && *d == defined)
            .unwrap_or_else(|| panic!("{name} {defined}"))
    };
    for name in ["rdc_scale", "_Z9rdc_clampiii", "_Z8rdc_bumpi"] {
        assert!(
            position(name, false) < position("rdc_apply", true),
            "{name}"
        );
        assert!(position(name, true) > position("rdc_apply", true), "{name}");
    }
    assert!(position("rdc_counter", true) < position("rdc_apply", true));
}

#[test]
fn nvcc_caller_links_with_nvrtc_callee() {
    let linked = link(&[
        corpus("nvcc/rdc_caller.sm_80.ptx"),
        corpus("nvrtc/compute_80/rdc_callee.ptx"),
    ])
    .unwrap();
    check_linked(&linked);
}

#[test]
fn every_problem_is_reported() {
    let callee = corpus("nvrtc/compute_80/rdc_callee.ptx");
    let caller = corpus("nvrtc/compute_80/rdc_caller.ptx");

    let Err(LinkError::Symbols(problems)) = link(std::slice::from_ref(&caller)) else {
        panic!("a caller alone must not link");
    };
    let mut unresolved: Vec<&str> = problems
        .iter()
        .map(|p| match p {
            SymbolProblem::Unresolved { name, modules } => {
                assert_eq!(modules, &[0]);
                name.as_str()
            }
            other => panic!("{other}"),
        })
        .collect();
    unresolved.sort_unstable();
    let mut expected = EXTERNS.to_vec();
    expected.sort_unstable();
    assert_eq!(unresolved, expected);
    let message = LinkError::Symbols(problems).to_string();
    assert!(
        message.contains("`_Z9rdc_clampiii` (`rdc_clamp(int, int, int)`)"),
        "{message}"
    );

    let options = LinkOptions {
        allow_unresolved: true,
        ..LinkOptions::default()
    };
    let partial = link_with(std::slice::from_ref(&caller), &options).unwrap();
    assert_eq!(
        SymbolTable::from_module(&partial)
            .get("rdc_counter")
            .unwrap()
            .linkage,
        Linkage::Extern
    );

    let Err(LinkError::Symbols(problems)) = link(&[callee.clone(), caller, callee]) else {
        panic!("the callee twice must not link");
    };
    let duplicates: Vec<&str> = problems
        .iter()
        .map(|p| match p {
            SymbolProblem::Duplicate { name, modules } => {
                assert_eq!(modules, &[0, 2]);
                name.as_str()
            }
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(
        duplicates,
        [
            "rdc_counter",
            "rdc_scale",
            "_Z9rdc_clampiii",
            "_Z8rdc_bumpi",
            "rdc_reset"
        ]
    );
}

const HELPER_MODULE: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 hits;
.func (.param .b32 r) helper(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [x];
    add.s32 %r2, %r1, ADDEND;
    st.param.b32 [r], %r2;
    ret;
}
.weak .entry _Z4tmplIiEvPi(.param .u64 p) { ret; }
.visible .entry NAME(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
    .param .b32 a;
    st.param.b32 [a], 1;
    .param .b32 b;
    call.uni (b), helper, (a);
    ld.param.b32 %r1, [b];
    }
    atom.global.add.u32 %r2, [hits], 1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"#;

fn helper_module(name: &str, addend: i32) -> Module {
    let text = HELPER_MODULE
        .replace("NAME", name)
        .replace("ADDEND", &addend.to_string());
    parse(&text).unwrap()
}

#[test]
fn internal_clashes_are_renamed_and_weak_templates_merge() {
    let linked = link(&[helper_module("first", 1), helper_module("second", 2)]).unwrap();
    let printed = print(&linked);
    assert!(
        print(&parse(&printed).unwrap()) == printed,
        "print/parse round trip"
    );
    let table = SymbolTable::from_module(&linked);
    assert_eq!(table.get("first").unwrap().callees, ["helper"]);
    let renamed = &table.get("second").unwrap().callees[0];
    assert_ne!(renamed, "helper");
    assert!(table.get(renamed).unwrap().defined);
    // Each module keeps its own `hits` counter and its own helper.
    let globals: Vec<&str> = table.globals().map(|g| g.name.as_str()).collect();
    assert_eq!(globals.len(), 2, "{globals:?}");
    assert!(printed.contains(&format!("[{}]", globals[1])), "{printed}");
    // One copy of the weak template instance.
    let templates = linked
        .items
        .iter()
        .filter(|i| matches!(i, Item::Function(f) if f.kind == FunctionKind::Entry && f.name == "_Z4tmplIiEvPi"))
        .count();
    assert_eq!(templates, 1);
}

#[test]
fn address_sizes_must_agree() {
    let mut narrow = helper_module("narrow", 1);
    narrow.address_size = 32;
    let err = link(&[helper_module("wide", 1), narrow]).unwrap_err();
    assert!(
        matches!(err, LinkError::AddressSize { module: 1, .. }),
        "{err}"
    );
}

#[test]
fn symbol_table_check_agrees_with_the_linker() {
    let callee = corpus("nvrtc/compute_80/rdc_callee.ptx");
    let caller = corpus("nvrtc/compute_80/rdc_caller.ptx");
    let options = LinkOptions::default();
    for set in [
        vec![callee.clone(), caller.clone()],
        vec![caller.clone()],
        vec![callee.clone(), caller, callee],
    ] {
        let tables: Vec<SymbolTable> = set.iter().map(SymbolTable::from_module).collect();
        let refs: Vec<&SymbolTable> = tables.iter().collect();
        let checked = check_symbols(&refs, &options);
        match link(&set) {
            Ok(_) => assert_eq!(checked, Ok(())),
            Err(LinkError::Symbols(problems)) => assert_eq!(checked, Err(problems)),
            Err(other) => panic!("{other}"),
        }
    }
}
