//! Linking modules with line information (`-lineinfo`) and full debug information (`-G`):
//! `.file` indices are renumbered per module, and debug sections are kept only when one module
//! has them (otherwise they and the `debug` target word are dropped, as ptxas requires).

use std::path::Path;

use chevron_ptx::ir::{Item, Module, Statement};
use chevron_ptx::{link, parse, print};

fn corpus(path: &str) -> Module {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(path);
    parse(&std::fs::read_to_string(full).unwrap()).unwrap()
}

fn files(module: &Module) -> Vec<(u32, String)> {
    module
        .items
        .iter()
        .filter_map(|item| match item {
            Item::File { index, path, .. } => Some((*index, path.clone())),
            _ => None,
        })
        .collect()
}

/// The `.loc` file indices used by the function named `name`.
fn loc_files(module: &Module, name: &str) -> Vec<u32> {
    fn walk(statements: &[Statement], out: &mut Vec<u32>) {
        for statement in statements {
            match statement {
                Statement::Loc { file, .. } => out.push(*file),
                Statement::Block(inner) => walk(inner, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for item in &module.items {
        if let Item::Function(f) = item {
            if f.name == name {
                walk(f.body.as_deref().unwrap_or_default(), &mut out);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn sections(module: &Module) -> usize {
    module
        .items
        .iter()
        .filter(|i| matches!(i, Item::Section { .. }))
        .count()
}

#[test]
fn line_info_of_two_modules_is_renumbered() {
    let lineinfo = corpus("nvrtc/compute_80/elementwise.lineinfo.ptx");
    let debug = corpus("nvrtc/compute_80/reduce.debug.ptx");
    assert_eq!(debug.target, ["sm_80", "debug"]);
    let linked = link(&[lineinfo, debug.clone()]).unwrap();
    assert_eq!(
        files(&linked),
        [
            (1, "/elementwise.cu".to_string()),
            (2, "/reduce.cu".to_string())
        ]
    );
    assert_eq!(loc_files(&linked, "saxpy"), [1]);
    assert_eq!(loc_files(&linked, "block_reduce_sum"), [2]);
    // Only the -G module has debug sections: they stay; not every module is `debug`.
    assert_eq!(sections(&linked), sections(&debug));
    assert_eq!(linked.target, ["sm_80"]);
    let printed = print(&linked);
    assert!(print(&parse(&printed).unwrap()) == printed);
}

#[test]
fn debug_sections_of_several_modules_are_dropped_with_the_debug_target() {
    let linked = link(&[
        corpus("nvrtc/compute_80/reduce.debug.ptx"),
        corpus("nvrtc/compute_80/atomics.O0.ptx"),
    ])
    .unwrap();
    assert_eq!(linked.target, ["sm_80"]);
    assert_eq!(sections(&linked), 0);
    assert_eq!(files(&linked).len(), 2);
}
