//! Lists the kernels, device functions and globals of a code object (PTX, cubin or fatbin).
//!
//! `cargo run -p chevron --example 05-symbols -- corpus/nvrtc/compute_80/reduce.ptx` (without
//! a file: the crate's test kernels, found from any directory).

use chevron::{Module, Runtime, SymbolKind};

fn main() -> chevron::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/basics.ptx").into());
    let runtime = Runtime::new()?;
    let module = Module::from_file(runtime.default_device()?, &path)?;
    for symbol in &module.symbols().symbols {
        let what = match symbol.kind {
            SymbolKind::Kernel => "kernel",
            SymbolKind::DeviceFunction => "device function",
            SymbolKind::Global { .. } => "global",
        };
        println!("{what:<16} {}", symbol.display_name());
        for param in &symbol.params {
            println!(
                "{:<16}   {} at {}, {} bytes",
                "", param.name, param.offset, param.size
            );
        }
    }
    Ok(())
}
