//! Cubins read by chevron against NVIDIA's own reading of them: `cuobjdump -elf` views next to
//! every cubin of the corpus (NVRTC, nvcc, Triton with ptxas 12.9 and 13.4, MLIR), listing each
//! kernel's `EIATTR_KPARAM_INFO` (ordinal, offset, size).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chevron::code_object::Cubin;

/// Kernel name → (ordinal, offset, size) of each parameter, from a `cuobjdump -elf` view.
fn kparams_of_view(view: &str) -> BTreeMap<String, Vec<(u32, u32, u32)>> {
    let mut out: BTreeMap<String, Vec<(u32, u32, u32)>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in view.lines() {
        if !line.starts_with(['\t', ' ']) && !line.is_empty() {
            section = line.strip_prefix(".nv.info.").map(str::to_string);
            continue;
        }
        let Some(kernel) = &section else { continue };
        let words: Vec<&str> = line.split_whitespace().filter(|w| *w != ":").collect();
        let field = |name: &str| {
            let at = words.iter().position(|w| *w == name)?;
            u32::from_str_radix(words.get(at + 1)?.trim_start_matches("0x"), 16).ok()
        };
        if let (Some(ordinal), Some(offset), Some(size)) =
            (field("Ordinal"), field("Offset"), field("Size"))
        {
            out.entry(kernel.clone())
                .or_default()
                .push((ordinal, offset, size));
        }
    }
    for params in out.values_mut() {
        params.sort_unstable();
    }
    out
}

fn views() -> Vec<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut out = Vec::new();
    for dir in ["cubin", "nvcc", "triton", "mlir"] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with(".cubin.elf.txt") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn parameter_layouts_match_cuobjdump() {
    let views = views();
    assert!(views.len() >= 15, "only {} cuobjdump views", views.len());
    let mut kernels = 0;
    for view_path in views {
        let view_name = view_path.to_string_lossy();
        let cubin_path = PathBuf::from(view_name.trim_end_matches(".elf.txt"));
        let cubin = Cubin::parse(&std::fs::read(&cubin_path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", cubin_path.display()));
        let expected = kparams_of_view(&std::fs::read_to_string(&view_path).unwrap());
        assert!(!expected.is_empty(), "{}", view_path.display());
        for (name, params) in expected {
            let symbol = cubin
                .symbols
                .get(&name)
                .unwrap_or_else(|| panic!("{}: no {name}", cubin_path.display()));
            assert!(symbol.is_kernel(), "{name}");
            let ours: Vec<(u32, u32, u32)> = symbol
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| (i as u32, p.offset, p.size))
                .collect();
            assert_eq!(ours, params, "{}: {name}", cubin_path.display());
            kernels += 1;
        }
    }
    assert!(kernels >= 50, "only {kernels} kernels compared");
}
