//! Fuzz target `parse`: any bytes must parse to `Ok` or `Err` without panicking, hanging or
//! exhausting memory, and whatever parses must print to text that parses to the same module.
//!
//! Run from the repository root (see CONTRIBUTING.md):
//! `cargo +nightly fuzz run parse fuzz/corpus/parse corpus crates/chevron-ptx/tests/data`
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(module) = chevron_ptx::parse_bytes(data) {
        let printed = chevron_ptx::print(&module);
        let reparsed = match chevron_ptx::parse(&printed) {
            Ok(reparsed) => reparsed,
            Err(err) => panic!("printed text does not parse: {err}\n{printed}"),
        };
        assert_eq!(
            reparsed.without_spans(),
            module.without_spans(),
            "print/parse changed the module"
        );
    }
});
