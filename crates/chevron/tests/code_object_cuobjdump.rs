//! Cubins read by chevron against NVIDIA's own reading of them: `cuobjdump -elf` views next to
//! every cubin of the corpus (NVRTC, nvcc, Triton with ptxas 12.9 and 13.4, MLIR), listing each
//! kernel's `EIATTR_KPARAM_INFO` (ordinal, offset, size); and `cuobjdump -elf` views of every
//! fatbin, listing each entry's kind, architecture, version and compression.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chevron::code_object::{parse_fatbin, Cubin, EntryKind};

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

/// (is PTX, SM architecture, (major, minor) version, compressed) of each entry described by the
/// `cuobjdump -elf` part of a fatbin view, sorted.
fn entries_of_view(view: &str) -> Vec<(bool, u32, (u16, u16), bool)> {
    let Some(start) = view.find("# cuobjdump -elf") else {
        return Vec::new();
    };
    let part = &view[start..];
    let part = &part[..part.find("# cuobjdump -ptx").unwrap_or(part.len())];
    let mut out = Vec::new();
    for block in part.split("Fatbin ").skip(1) {
        let ptx = block.starts_with("ptx code");
        let mut arch = 0;
        let mut version = (0, 0);
        let mut compressed = false;
        for line in block.lines().take(8) {
            if let Some(sm) = line.strip_prefix("arch = sm_") {
                arch = sm.trim().parse().unwrap_or(0);
            } else if let Some(v) = line.strip_prefix("code version = [") {
                let mut parts = v.trim_end_matches(']').split(',');
                let mut next = || {
                    parts
                        .next()
                        .and_then(|p| p.trim().parse().ok())
                        .unwrap_or(0)
                };
                version = (next(), next());
            } else if line.trim() == "compressed" {
                compressed = true;
            }
        }
        out.push((ptx, arch, version, compressed));
    }
    out.sort_unstable();
    out
}

#[test]
fn fatbin_entries_match_cuobjdump() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut compared = 0;
    for dir in ["nvcc", "mlir"] {
        for entry in std::fs::read_dir(corpus.join(dir)).unwrap() {
            let view_path = entry.unwrap().path();
            let view_name = view_path.to_string_lossy();
            let Some(fatbin_path) = view_name.strip_suffix(".txt") else {
                continue;
            };
            if !fatbin_path.ends_with(".fatbin") {
                continue;
            }
            let expected = entries_of_view(&std::fs::read_to_string(&view_path).unwrap());
            assert!(!expected.is_empty(), "{view_name}");
            let bytes = std::fs::read(fatbin_path).unwrap();
            let mut ours: Vec<(bool, u32, (u16, u16), bool)> = parse_fatbin(&bytes)
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e.kind == EntryKind::Ptx,
                        e.arch,
                        e.version,
                        e.compression.is_some(),
                    )
                })
                .collect();
            ours.sort_unstable();
            assert_eq!(ours, expected, "{fatbin_path}");
            compared += 1;
        }
    }
    assert!(compared >= 4, "only {compared} fatbins compared");
}
