//! Cubins from NVRTC and nvcc 13.0 (corpus/): symbols, kernel parameter layouts agreeing with the
//! PTX the same source compiles to, resources, call graph, and robustness on damaged input.

use std::path::{Path, PathBuf};

use chevron::code_object::{binary_symbols, detect, CodeObjectKind, Cubin};
use chevron_ptx::ir::Linkage;
use chevron_ptx::linker::{check_symbols, LinkOptions, SymbolProblem};
use chevron_ptx::symbols::{SymbolKind, SymbolTable};

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../corpus")
        .join(path)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(corpus(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ptx_symbols(path: &str) -> SymbolTable {
    let text = String::from_utf8(read(path)).unwrap();
    SymbolTable::from_module(&chevron_ptx::parse(&text).unwrap())
}

/// (cubin, PTX of the same source for the same architecture family).
const PAIRS: &[(&str, &str)] = &[
    (
        "cubin/elementwise.sm_80.cubin",
        "nvrtc/compute_80/elementwise.ptx",
    ),
    (
        "cubin/elementwise.sm_90.cubin",
        "nvrtc/compute_90/elementwise.ptx",
    ),
    ("cubin/structs.sm_90.cubin", "nvrtc/compute_90/structs.ptx"),
    (
        "cubin/memory_spaces.sm_90.cubin",
        "nvrtc/compute_80/memory_spaces.ptx",
    ),
    ("cubin/reduce.sm_80.cubin", "nvrtc/compute_80/reduce.ptx"),
    ("cubin/hopper.sm_90.cubin", "nvrtc/compute_90/hopper.ptx"),
    (
        "cubin/rdc_caller.sm_90.cubin",
        "nvrtc/compute_90/rdc_caller.ptx",
    ),
    (
        "cubin/rdc_callee.sm_90.cubin",
        "nvrtc/compute_90/rdc_callee.ptx",
    ),
    ("triton/add.sm_80.cubin", "triton/add.sm_80.ptx"),
    ("triton/add.sm_90.cubin", "triton/add.sm_90.ptx"),
    (
        "triton/layer_norm.sm_80.cubin",
        "triton/layer_norm.sm_80.ptx",
    ),
    (
        "triton/layer_norm.sm_90.cubin",
        "triton/layer_norm.sm_90.ptx",
    ),
    ("triton/matmul.sm_80.cubin", "triton/matmul.sm_80.ptx"),
    ("triton/matmul.sm_90.cubin", "triton/matmul.sm_90.ptx"),
    ("triton/softmax.sm_80.cubin", "triton/softmax.sm_80.ptx"),
    ("triton/softmax.sm_90.cubin", "triton/softmax.sm_90.ptx"),
];

#[test]
fn kernel_parameters_agree_with_the_ptx() {
    for (cubin_path, ptx_path) in PAIRS {
        let bytes = read(cubin_path);
        assert_eq!(detect(&bytes), Some(CodeObjectKind::Cubin));
        let cubin = Cubin::parse(&bytes).unwrap();
        let ptx = ptx_symbols(ptx_path);
        let kernels: Vec<_> = cubin.symbols.kernels().collect();
        assert!(!kernels.is_empty(), "{cubin_path}: no kernels");
        for kernel in kernels {
            let from_ptx = ptx
                .get(&kernel.name)
                .unwrap_or_else(|| panic!("{cubin_path}: {} not in {ptx_path}", kernel.name));
            let layout = |s: &chevron_ptx::Symbol| -> Vec<(u32, u32)> {
                s.params.iter().map(|p| (p.offset, p.size)).collect()
            };
            assert_eq!(
                layout(kernel),
                layout(from_ptx),
                "{cubin_path}: {}",
                kernel.name
            );
            for (c, p) in kernel.params.iter().zip(&from_ptx.params) {
                assert!(c.align.is_power_of_two() && c.offset % c.align == 0);
                assert!(
                    c.align >= p.align.min(16) || c.size % p.align != 0,
                    "{}",
                    kernel.name
                );
            }
            let facts = cubin.kernel(&kernel.name).unwrap();
            assert_eq!(
                facts.info.param_buffer_size.map(u32::from),
                Some(kernel.param_buffer_size()),
                "{cubin_path}: {}",
                kernel.name
            );
            assert!(facts.resources.registers.is_some_and(|r| r > 0 && r <= 255));
        }
    }
}

#[test]
fn structs_by_value_and_mangled_names() {
    let cubin = Cubin::parse(&read("cubin/structs.sm_90.cubin")).unwrap();
    assert_eq!(cubin.arch, 90);
    assert!(!cubin.relocatable);
    let two = cubin.symbols.find("two_structs").unwrap();
    assert_eq!(two.name, "_Z11two_structs6ParamsiS_9Aligned16Pf");
    assert_eq!(
        two.demangled.as_deref(),
        Some("two_structs(Params, int, Params, Aligned16, float*)")
    );
    let layout: Vec<(u32, u32, u32)> = two
        .params
        .iter()
        .map(|p| (p.offset, p.size, p.align))
        .collect();
    assert_eq!(
        layout,
        [
            (0, 16, 16),
            (16, 4, 4),
            (24, 16, 8),
            (48, 32, 16),
            (80, 8, 8)
        ]
    );
}

#[test]
fn relocatable_cubin_lists_externs_and_calls() {
    let cubin = Cubin::parse(&read("cubin/rdc_caller.sm_90.cubin")).unwrap();
    assert!(cubin.relocatable);
    assert_eq!(cubin.arch, 90);
    let table = &cubin.symbols;
    let apply = table.get("rdc_apply").unwrap();
    assert_eq!(apply.kind, SymbolKind::Kernel);
    assert_eq!(
        apply.callees,
        ["rdc_scale", "_Z9rdc_clampiii", "_Z8rdc_bumpi"]
    );
    let clamp = table.find("rdc_clamp(int, int, int)").unwrap();
    assert_eq!(clamp.kind, SymbolKind::DeviceFunction);
    assert!(!clamp.defined);
    assert_eq!(clamp.linkage, Linkage::Extern);
    let counter = table.get("rdc_counter").unwrap();
    assert!(matches!(counter.kind, SymbolKind::Global { .. }));
    assert!(!counter.defined);
    assert!(table.get("__UDT_OFFSET").is_none());

    let callee = Cubin::parse(&read("cubin/rdc_callee.sm_90.cubin")).unwrap();
    let counter = callee.symbols.get("rdc_counter").unwrap();
    assert!(counter.defined);
    assert_eq!(counter.linkage, Linkage::Visible);
    assert!(matches!(counter.kind, SymbolKind::Global { size: 4, .. }));
    assert!(callee.symbols.get("_Z9rdc_clampiii").unwrap().defined);
}

#[test]
fn globals_by_state_space() {
    let cubin = Cubin::parse(&read("cubin/memory_spaces.sm_90.cubin")).unwrap();
    let space = |name: &str| match cubin.symbols.get(name).map(|s| s.kind) {
        Some(SymbolKind::Global { space, size, .. }) => Some((space.as_str(), size)),
        _ => None,
    };
    assert_eq!(space("dev_counter"), Some(("global", 4)));
    assert_eq!(space("dev_table"), Some(("global", 64)));
    assert_eq!(space("coeffs"), Some(("const", 32)));
    assert_eq!(space("const_lut"), Some(("const", 16)));
}

#[test]
fn nvcc_cubins_parse_too() {
    for path in [
        "nvcc/reduce.sm_80.cubin",
        "nvcc/memory_spaces.sm_90.cubin",
        "nvcc/rdc_callee.sm_80.cubin",
        "nvcc/rdc_caller.sm_80.cubin",
    ] {
        let table = binary_symbols(&read(path)).unwrap();
        assert!(table.kernels().count() > 0, "{path}");
    }
}

#[test]
fn damaged_cubins_are_errors_not_panics() {
    let bytes = read("cubin/rdc_caller.sm_90.cubin");
    for len in [0, 3, 16, 63, 64, 200, bytes.len() / 2, bytes.len() - 1] {
        let _ = Cubin::parse(&bytes[..len]);
    }
    let mut flipped = bytes.clone();
    for i in (64..flipped.len()).step_by(37) {
        flipped[i] ^= 0xa5;
        let _ = Cubin::parse(&flipped);
    }
    let mut x86 = bytes;
    x86[18] = 62;
    let err = Cubin::parse(&x86).unwrap_err();
    assert!(err.to_string().contains("machine 62"), "{err}");
}

#[test]
fn relocatable_cubins_are_checked_before_linking() {
    let caller = Cubin::parse(&read("cubin/rdc_caller.sm_90.cubin"))
        .unwrap()
        .symbols;
    let callee = Cubin::parse(&read("cubin/rdc_callee.sm_90.cubin"))
        .unwrap()
        .symbols;
    let options = LinkOptions::default();
    assert_eq!(check_symbols(&[&caller, &callee], &options), Ok(()));

    let problems = check_symbols(&[&caller], &options).unwrap_err();
    let mut unresolved: Vec<&str> = problems
        .iter()
        .map(|p| match p {
            SymbolProblem::Unresolved { name, .. } => name.as_str(),
            other => panic!("{other}"),
        })
        .collect();
    unresolved.sort_unstable();
    assert_eq!(
        unresolved,
        [
            "_Z8rdc_bumpi",
            "_Z9rdc_clampiii",
            "rdc_counter",
            "rdc_scale"
        ]
    );

    let problems = check_symbols(&[&callee, &caller, &callee], &options).unwrap_err();
    assert_eq!(problems.len(), 5, "{problems:?}");
    assert!(problems
        .iter()
        .all(|p| matches!(p, SymbolProblem::Duplicate { modules, .. } if modules == &[0, 2])));
}

#[test]
fn weak_template_kernels_found_by_instance() {
    let cubin = Cubin::parse(&read("cubin/reduce.sm_80.cubin")).unwrap();
    assert_eq!(cubin.arch, 80);
    let scan = cubin
        .symbols
        .find("block_scan<float, 256>(const float*, float*, int)")
        .unwrap();
    assert_eq!(scan.name, "_Z10block_scanIfLi256EEvPKT_PS0_i");
    assert_eq!(scan.linkage, Linkage::Weak);
    assert_eq!(scan.kind, SymbolKind::Kernel);
    assert!(cubin.symbols.find("block_scan").is_err());
    assert_eq!(
        cubin
            .symbols
            .find_kernel("block_reduce_sum")
            .unwrap()
            .params
            .len(),
        3
    );
}
