//! `chevron inspect FILE`: kernels, device functions and globals of a code object, with
//! demangled signatures and kernel parameter layouts. Needs no device.

use std::path::Path;

use chevron::code_object::{self, CodeObjectKind};
use chevron::{Symbol, SymbolKind, SymbolTable};
use serde_json::json;

use super::CommandResult;

/// Prints the symbol table of `file`.
pub fn run(file: &Path, as_json: bool) -> CommandResult {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let kind = code_object::detect(&bytes).unwrap_or(CodeObjectKind::Ptx);
    let table = symbol_table(&bytes, kind, file)?;
    if as_json {
        let symbols: Vec<_> = table.symbols.iter().map(symbol_json).collect();
        let out = json!({
            "file": file.display().to_string(),
            "kind": kind_name(kind),
            "symbols": symbols,
        });
        println!("{out}");
        return Ok(());
    }
    println!("{} ({})", file.display(), kind_name(kind));
    for symbol in &table.symbols {
        print_symbol(symbol);
    }
    Ok(())
}

/// The symbol table of a code object of any kind.
pub fn symbol_table(
    bytes: &[u8],
    kind: CodeObjectKind,
    file: &Path,
) -> Result<SymbolTable, String> {
    match kind {
        CodeObjectKind::Ptx => {
            let module =
                chevron_ptx::parse_bytes(bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            Ok(SymbolTable::from_module(&module))
        }
        CodeObjectKind::Cubin | CodeObjectKind::Fatbin => {
            code_object::binary_symbols(bytes).map_err(|e| format!("{}: {e}", file.display()))
        }
    }
}

fn kind_name(kind: CodeObjectKind) -> &'static str {
    match kind {
        CodeObjectKind::Ptx => "ptx",
        CodeObjectKind::Cubin => "cubin",
        CodeObjectKind::Fatbin => "fatbin",
    }
}

fn kind_words(symbol: &Symbol) -> String {
    match symbol.kind {
        SymbolKind::Kernel => "kernel".into(),
        SymbolKind::DeviceFunction => "function".into(),
        SymbolKind::Global { space, size, .. } => format!(".{} {size} bytes", space.as_str()),
    }
}

fn print_symbol(symbol: &Symbol) {
    let defined = if symbol.defined { "" } else { "  (declared)" };
    println!(
        "  {:<10} {}{}",
        kind_words(symbol),
        symbol.display_name(),
        defined
    );
    if symbol.demangled.is_some() {
        println!("             symbol {}", symbol.name);
    }
    for (i, p) in symbol.params.iter().enumerate() {
        println!(
            "             param {i}: {} offset {} size {} align {}",
            p.name, p.offset, p.size, p.align
        );
    }
    if !symbol.callees.is_empty() {
        println!("             calls {}", symbol.callees.join(", "));
    }
}

fn symbol_json(symbol: &Symbol) -> serde_json::Value {
    let (kind, extra) = match symbol.kind {
        SymbolKind::Kernel => ("kernel", json!(null)),
        SymbolKind::DeviceFunction => ("function", json!(null)),
        SymbolKind::Global { space, size, align } => (
            "global",
            json!({"space": space.as_str(), "size": size, "align": align}),
        ),
    };
    let params: Vec<_> = symbol
        .params
        .iter()
        .map(|p| json!({"name": p.name, "offset": p.offset, "size": p.size, "align": p.align}))
        .collect();
    json!({
        "name": symbol.name,
        "demangled": symbol.demangled,
        "kind": kind,
        "global": extra,
        "linkage": format!("{:?}", symbol.linkage).to_lowercase(),
        "defined": symbol.defined,
        "params": params,
        "callees": symbol.callees,
    })
}
