//! `chevron inspect FILE`: kernels, device functions and globals of a code object, with
//! demangled signatures and kernel parameter layouts (with each parameter's PTX type when the
//! file is PTX). Needs no device.

use std::io::Write;
use std::path::Path;

use chevron::code_object::{self, CodeObjectKind};
use chevron::{Symbol, SymbolKind, SymbolTable};
use serde_json::json;

use super::kernel_params::ParamTypes;
use crate::output::CommandResult;
use crate::source_file::read_code_object;

/// Prints the symbol table of `file`.
pub fn run(file: &Path, as_json: bool, out: &mut dyn Write) -> CommandResult {
    let bytes = read_code_object(file)?;
    let kind = code_object::detect(&bytes).unwrap_or(CodeObjectKind::Ptx);
    let (table, types) = symbols_and_types(&bytes, file)?;
    if as_json {
        let symbols: Vec<_> = table
            .symbols
            .iter()
            .map(|s| symbol_json(s, &types))
            .collect();
        let json = json!({
            "file": file.display().to_string(),
            "kind": kind_name(kind),
            "symbols": symbols,
        });
        writeln!(out, "{json}")?;
        return Ok(());
    }
    writeln!(out, "{} ({})", file.display(), kind_name(kind))?;
    for symbol in &table.symbols {
        print_symbol(out, symbol, &types)?;
    }
    Ok(())
}

/// The symbol table of a code object of any kind, and its kernels' PTX parameter types (none
/// for cubins and fatbins).
pub fn symbols_and_types(bytes: &[u8], file: &Path) -> Result<(SymbolTable, ParamTypes), String> {
    let kind = code_object::detect(bytes).unwrap_or(CodeObjectKind::Ptx);
    match kind {
        CodeObjectKind::Ptx => {
            let module =
                chevron_ptx::parse_bytes(bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            Ok((
                SymbolTable::from_module(&module),
                ParamTypes::from_module(&module),
            ))
        }
        CodeObjectKind::Cubin | CodeObjectKind::Fatbin => code_object::binary_symbols(bytes)
            .map(|table| (table, ParamTypes::default()))
            .map_err(|e| format!("{}: {e}", file.display())),
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

fn print_symbol(out: &mut dyn Write, symbol: &Symbol, types: &ParamTypes) -> CommandResult {
    let defined = if symbol.defined { "" } else { "  (declared)" };
    writeln!(
        out,
        "  {:<10} {}{}",
        kind_words(symbol),
        symbol.display_name(),
        defined
    )?;
    if symbol.demangled.is_some() {
        writeln!(out, "             symbol {}", symbol.name)?;
    }
    for (i, p) in symbol.params.iter().enumerate() {
        let ty = types
            .type_text(&symbol.name, i)
            .map(|t| format!("{t} "))
            .unwrap_or_default();
        writeln!(
            out,
            "             param {i}: {ty}{} offset {} size {} align {}",
            p.name, p.offset, p.size, p.align
        )?;
    }
    if !symbol.callees.is_empty() {
        writeln!(out, "             calls {}", symbol.callees.join(", "))?;
    }
    Ok(())
}

fn symbol_json(symbol: &Symbol, types: &ParamTypes) -> serde_json::Value {
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
        .enumerate()
        .map(|(i, p)| {
            json!({"name": p.name, "type": types.type_text(&symbol.name, i), "offset": p.offset,
                   "size": p.size, "align": p.align})
        })
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
