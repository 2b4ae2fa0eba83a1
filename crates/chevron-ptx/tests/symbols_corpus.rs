//! Symbol tables of real compiler output (corpus/): every PTX file gives a table whose kernels are
//! defined and laid out consistently; lookups by C++ name, signature and template instance;
//! struct parameters; globals; the call graph with recursion and indirect calls.

use std::path::{Path, PathBuf};

use chevron_ptx::ir::{Linkage, StateSpace};
use chevron_ptx::symbols::{CallGraph, LookupError, SymbolKind, SymbolTable};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn module(path: &str) -> chevron_ptx::ir::Module {
    let text = std::fs::read_to_string(corpus().join(path)).unwrap();
    chevron_ptx::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn table(path: &str) -> SymbolTable {
    SymbolTable::from_module(&module(path))
}

fn ptx_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "nvrtc/compute_80",
        "nvrtc/compute_90",
        "nvcc",
        "clang",
        "mlir",
        "triton",
    ] {
        let Ok(entries) = std::fs::read_dir(corpus().join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_module_gives_a_consistent_table() {
    let files = ptx_files();
    assert!(files.len() >= 20, "corpus has {} PTX files", files.len());
    let mut kernels = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(module) = chevron_ptx::parse(&text) else {
            continue; // the parser's own tests report what does not parse
        };
        let table = SymbolTable::from_module(&module);
        let mut names: Vec<&str> = table.symbols.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "{}: repeated symbols", path.display());
        for kernel in table.kernels() {
            kernels += 1;
            assert!(kernel.defined, "{}: {}", path.display(), kernel.name);
            let mut end = 0;
            for p in &kernel.params {
                assert!(
                    p.offset >= end && p.offset % p.align == 0,
                    "{}",
                    kernel.name
                );
                end = p.offset + p.size;
            }
            // Every kernel can be found by its own name and by its signature.
            assert_eq!(table.find(&kernel.name).unwrap().name, kernel.name);
            if let Some(signature) = &kernel.demangled {
                assert_eq!(table.find(signature).unwrap().name, kernel.name);
            }
        }
    }
    assert!(kernels >= 60, "only {kernels} kernels");
}

#[test]
fn template_instances_by_name_expression() {
    for dir in ["compute_80", "compute_90"] {
        let table = table(&format!("nvrtc/{dir}/reduce.ptx"));
        let names = std::fs::read_to_string(corpus().join(format!("nvrtc/{dir}/reduce.names.txt")))
            .unwrap();
        for line in names.lines() {
            let (expression, lowered) = line.split_once('\t').unwrap();
            let found = table.find(expression).unwrap();
            assert_eq!(found.name, lowered);
            assert_eq!(found.linkage, Linkage::Weak);
        }
        let found = table
            .find("block_scan<int,128>(const int *, int *, int)")
            .unwrap();
        assert_eq!(found.name, "_Z10block_scanIiLi128EEvPKT_PS0_i");
        match table.find("block_scan") {
            Err(LookupError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates.len(), 2);
                assert!(candidates.iter().all(|c| c.starts_with("block_scan<")));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn structs_by_value_are_laid_out_like_the_driver() {
    let table = table("nvrtc/compute_80/structs.ptx");
    let layout = |name: &str| -> Vec<(u32, u32, u32)> {
        table
            .find(name)
            .unwrap()
            .params
            .iter()
            .map(|p| (p.offset, p.size, p.align))
            .collect()
    };
    // struct Params { float; int; double } (16 bytes, 8-aligned), two pointers.
    assert_eq!(
        layout("params_by_value"),
        [(0, 16, 8), (16, 8, 8), (24, 8, 8)]
    );
    // Vec3Id is 24 bytes, 8-aligned.
    assert_eq!(
        layout("vec3_by_value"),
        [(0, 24, 8), (24, 8, 8), (32, 8, 8)]
    );
    // Aligned16 is 32 bytes, 16-aligned: padding before it.
    let two = layout("two_structs(Params, int, Params, Aligned16, float*)");
    assert_eq!(two[3], (48, 32, 16));
    let mixed = layout("mixed_scalars");
    let offsets: Vec<u32> = mixed.iter().map(|p| p.0).collect();
    assert_eq!(offsets, [0, 2, 4, 8, 16, 24, 32, 40]);
    assert_eq!(table.find("mixed_scalars").unwrap().param_buffer_size(), 48);
}

#[test]
fn globals_and_dynamic_shared_memory() {
    let table = table("nvrtc/compute_80/memory_spaces.ptx");
    let global = |name: &str| match table.get(name).unwrap().kind {
        SymbolKind::Global { space, size, align } => (space, size, align),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(global("dev_table"), (StateSpace::Global, 64, 4));
    assert_eq!(global("coeffs"), (StateSpace::Const, 32, 4));
    assert_eq!(global("s"), (StateSpace::Shared, 0, 16));
    assert!(!table.get("s").unwrap().defined);
    assert_eq!(table.globals().count(), 6);
    let helper = table.find("load_generic").unwrap();
    assert_eq!(helper.kind, SymbolKind::DeviceFunction);
    assert_eq!(helper.linkage, Linkage::Internal);
    assert_eq!(
        table.find("generic_pointers").unwrap().callees,
        ["_Z12load_genericPKfi"]
    );
}

#[test]
fn call_graph_with_recursion_and_function_pointers() {
    let module = module("nvrtc/compute_80/device_funcs.ptx");
    let table = SymbolTable::from_module(&module);
    // NVVM turns factorial's tail recursion into a loop; fibonacci stays recursive.
    assert!(table
        .find("factorial(unsigned int)")
        .unwrap()
        .callees
        .is_empty());
    let fibonacci = table.find("fibonacci").unwrap();
    assert_eq!(fibonacci.callees, std::slice::from_ref(&fibonacci.name));
    let graph = CallGraph::from_module(&module);
    let indirect = graph.calls("call_indirect").unwrap();
    assert!(indirect.indirect);
    for op in ["_Z6op_addff", "_Z6op_mulff", "_Z6op_maxff"] {
        assert!(graph.address_taken.contains(op), "{op}");
        assert!(graph.reachable_from("call_indirect").contains(op), "{op}");
    }
    assert!(!graph.reachable_from("call_minmax").contains("_Z6op_addff"));
}

#[test]
fn misspelled_names_suggest_close_ones() {
    let table = table("nvrtc/compute_80/elementwise.ptx");
    let err = table.find("vec_add_f23").unwrap_err();
    assert!(matches!(err, LookupError::NotFound { .. }));
    assert!(err.candidates().iter().any(|c| c == "vec_add_f32"), "{err}");
    let found = table
        .find("vec_mul_i(const long long *, const long long*, long long*, unsigned long)")
        .unwrap();
    assert_eq!(found.name, "_Z9vec_mul_iPKxS0_Pxm");
    let with_typedef = table
        .find("vec_mul_i(const long long*, const long long*, long long*, std::size_t)")
        .unwrap();
    assert_eq!(with_typedef.name, found.name);
}
