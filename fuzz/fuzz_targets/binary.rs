//! Fuzz target `binary`: the readers of binary code objects — fatbin containers and entries
//! (with their LZ4 and Zstandard payloads), cubins (ELF headers, section and symbol tables,
//! `.nv.info` records), host ELF files' embedded fatbins, and the bounds of a fatbin found in
//! memory — must answer `Ok` or `Err` for any bytes, without panicking, hanging or exhausting
//! memory.
//!
//! Run from the repository root (see CONTRIBUTING.md):
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run -s none binary fuzz/corpus/binary fuzz/seeds/binary`
#![no_main]

use chevron::code_object::{
    binary_symbols, check_fatbin, container_extent, embedded_fatbins, parse_fatbin, CodeObject,
    Cubin, IN_MEMORY,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = parse_fatbin(data) {
        for entry in entries {
            if let Ok(contents) = entry.contents() {
                let _ = Cubin::parse(&contents);
            }
            let _ = entry.ptx_text();
        }
    }
    let _ = check_fatbin(data);
    if let Ok(fatbin) = container_extent(data) {
        assert!(fatbin.len() <= data.len());
        let _ = check_fatbin(fatbin);
    }
    let _ = Cubin::parse(data);
    if let Ok(fatbins) = embedded_fatbins(data) {
        for fatbin in fatbins {
            let _ = check_fatbin(fatbin);
        }
    }
    let _ = binary_symbols(data);
    let code = CodeObject::read(data, IN_MEMORY);
    let _ = code.symbols_error();
});
