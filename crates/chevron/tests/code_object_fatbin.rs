//! Fatbins from nvcc and fatbinary 13.0: entries, Zstandard and LZ4 decompression, the PTX and
//! cubins inside agreeing with each other, concatenated containers, damaged input.

use std::path::Path;

use chevron::code_object::{
    binary_symbols, detect, embedded_fatbins, is_cuda_elf, parse_fatbin, CodeObjectKind,
    Compression, Cubin, EntryKind,
};
use chevron_ptx::symbols::SymbolTable;

fn read(path: &str) -> Vec<u8> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn layouts(table: &SymbolTable) -> Vec<(String, Vec<(u32, u32)>)> {
    let mut out: Vec<_> = table
        .kernels()
        .map(|k| {
            let params = k.params.iter().map(|p| (p.offset, p.size)).collect();
            (k.name.clone(), params)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn zstd_fatbin_with_two_cubins_and_ptx() {
    let bytes = read("../../corpus/nvcc/elementwise.sm_80.sm_90.compute_90.fatbin");
    assert_eq!(detect(&bytes), Some(CodeObjectKind::Fatbin));
    let entries = parse_fatbin(&bytes).unwrap();
    let summary: Vec<(EntryKind, u32)> = entries.iter().map(|e| (e.kind, e.arch)).collect();
    assert_eq!(summary.len(), 3, "{summary:?}");
    for wanted in [
        (EntryKind::Elf, 80),
        (EntryKind::Elf, 90),
        (EntryKind::Ptx, 90),
    ] {
        assert!(summary.contains(&wanted), "{summary:?}");
    }
    let ptx_entry = entries.iter().find(|e| e.kind == EntryKind::Ptx).unwrap();
    assert_eq!(ptx_entry.compression, Some(Compression::Zstd));
    let text = ptx_entry.ptx_text().unwrap();
    assert!(text.contains(".version") && text.contains(".entry"));
    let from_ptx = SymbolTable::from_module(&chevron_ptx::parse(&text).unwrap());
    for entry in entries.iter().filter(|e| e.kind == EntryKind::Elf) {
        let contents = entry.contents().unwrap();
        let cubin = Cubin::parse(&contents).unwrap();
        assert_eq!(cubin.arch, entry.arch);
        assert_eq!(layouts(&cubin.symbols), layouts(&from_ptx));
    }
    assert_eq!(
        layouts(&binary_symbols(&bytes).unwrap()),
        layouts(&from_ptx)
    );
}

#[test]
fn uncompressed_fatbin() {
    let bytes = read("../../corpus/nvcc/structs.sm_80.compute_80.uncompressed.fatbin");
    let entries = parse_fatbin(&bytes).unwrap();
    assert!(entries.iter().all(|e| e.compression.is_none()));
    let ptx = entries.iter().find(|e| e.kind == EntryKind::Ptx).unwrap();
    assert_eq!(ptx.arch, 80);
    let text = ptx.ptx_text().unwrap();
    assert!(!text.ends_with('\0'));
    let from_ptx = SymbolTable::from_module(&chevron_ptx::parse(&text).unwrap());
    assert_eq!(
        layouts(&binary_symbols(&bytes).unwrap()),
        layouts(&from_ptx)
    );
}

#[test]
fn lz4_fatbin_and_concatenated_containers() {
    let lz4 = read("tests/data/rdc_callee.lz4.fatbin");
    let entries = parse_fatbin(&lz4).unwrap();
    assert!(entries
        .iter()
        .all(|e| e.compression == Some(Compression::Lz4)));
    let cubin = entries.iter().find(|e| e.kind == EntryKind::Elf).unwrap();
    assert_eq!(
        cubin.contents().unwrap().as_ref(),
        read("../../corpus/cubin/rdc_callee.sm_90.cubin")
    );
    let text = entries
        .iter()
        .find(|e| e.kind == EntryKind::Ptx)
        .unwrap()
        .ptx_text()
        .unwrap();
    assert!(text.contains("_Z9rdc_clampiii"));

    let ptx_only = read("../../corpus/nvcc/atomics.compute_80.fatbin");
    let mut both = lz4.clone();
    both.extend_from_slice(&[0; 8]);
    both.extend_from_slice(&ptx_only);
    let all = parse_fatbin(&both).unwrap();
    assert_eq!(
        all.len(),
        entries.len() + parse_fatbin(&ptx_only).unwrap().len()
    );
    // A PTX-only fatbin lists the symbols of its PTX entry.
    let symbols = binary_symbols(&ptx_only).unwrap();
    let kernel = symbols.get("atomics_int").expect("atomics_int is listed");
    assert_eq!(
        kernel.params.iter().map(|p| p.size).collect::<Vec<_>>(),
        [8, 8, 4]
    );
}

#[test]
fn damaged_fatbins_are_errors_not_panics() {
    let bytes = read("tests/data/rdc_callee.lz4.fatbin");
    for len in [4, 15, 16, 40, 79, 100, bytes.len() - 1] {
        assert!(parse_fatbin(&bytes[..len]).is_err(), "length {len}");
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(29) {
        flipped[i] ^= 0x5a;
        if let Ok(entries) = parse_fatbin(&flipped) {
            for entry in entries {
                let _ = entry.contents();
            }
        }
    }
    // The first entry's decompressed size (bytes 56..64 of its header) off by one.
    let mut wrong_size = bytes.clone();
    wrong_size[16 + 56] ^= 1;
    let entries = parse_fatbin(&wrong_size).unwrap();
    let err = entries[0].contents().unwrap_err();
    assert!(err.to_string().contains("the header says"), "{err}");
    // A huge claimed size is refused before allocating.
    let mut huge = bytes;
    huge[16 + 63] = 0x7f;
    let entries = parse_fatbin(&huge).unwrap();
    assert!(entries[0].contents().is_err());
}

#[test]
fn mlir_embedded_fatbin_and_cubin() {
    let fatbin = read("../../corpus/mlir/fatbin_format.fatbin");
    let entries = parse_fatbin(&fatbin).unwrap();
    let ptx = entries.iter().find(|e| e.kind == EntryKind::Ptx).unwrap();
    let from_ptx = SymbolTable::from_module(&chevron_ptx::parse(&ptx.ptx_text().unwrap()).unwrap());
    assert_eq!(
        layouts(&binary_symbols(&fatbin).unwrap()),
        layouts(&from_ptx)
    );
    let cubin = binary_symbols(&read("../../corpus/mlir/cubin_format.cubin")).unwrap();
    assert_eq!(cubin.kernels().count(), 1);
}

#[test]
fn fatbin_embedded_in_an_nvcc_host_object() {
    let object = read("tests/data/structs.sm_90.host.elf");
    assert_eq!(detect(&object), Some(CodeObjectKind::Cubin));
    assert!(!is_cuda_elf(&object));
    let fatbins = embedded_fatbins(&object).unwrap();
    assert_eq!(fatbins.len(), 1);
    let entries = parse_fatbin(fatbins[0]).unwrap();
    let kinds: Vec<(EntryKind, u32)> = entries.iter().map(|e| (e.kind, e.arch)).collect();
    assert!(kinds.contains(&(EntryKind::Elf, 90)), "{kinds:?}");
    let from_object = binary_symbols(&object).unwrap();
    let cubin = Cubin::parse(&read("../../corpus/cubin/structs.sm_90.cubin")).unwrap();
    assert_eq!(layouts(&from_object), layouts(&cubin.symbols));
    // A cubin is not a host file, and a host file is not a cubin.
    assert!(
        embedded_fatbins(&read("../../corpus/cubin/structs.sm_90.cubin"))
            .unwrap()
            .is_empty()
    );
    assert!(Cubin::parse(&object).is_err());
}
