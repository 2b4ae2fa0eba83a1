//! `chevron inspect FILE`: kernels, device functions and globals of a code object, with
//! demangled signatures and kernel parameter layouts (with each parameter's PTX type when the
//! file is PTX). Needs no device.

use std::io::Write;
use std::path::Path;

use chevron::code_object::CodeObject;
use chevron::{Symbol, SymbolKind};
use serde_json::json;

use super::kernel_params::ParamTypes;
use crate::output::CommandResult;
use crate::source_file::read_code_object;

/// Prints the symbol table of `file`.
pub fn run(file: &Path, as_json: bool, out: &mut dyn Write) -> CommandResult {
    let (code, types) = read(read_code_object(file)?, file)?;
    let table = code.symbols().ok_or("the symbols were checked by `read`")?;
    if as_json {
        let symbols: Vec<_> = table
            .symbols
            .iter()
            .map(|s| symbol_json(s, &types))
            .collect();
        let json = json!({
            "file": file.display().to_string(),
            "kind": code.kind().as_str(),
            "symbols": symbols,
        });
        writeln!(out, "{json}")?;
        return Ok(());
    }
    writeln!(out, "{} ({})", file.display(), code.kind().as_str())?;
    for symbol in &table.symbols {
        print_symbol(out, symbol, &types)?;
    }
    Ok(())
}

/// Reads a code object of any kind once (PTX is parsed here and nowhere else), checks that its
/// symbol table can be read, and gives its kernels' PTX parameter types (none for cubins and
/// fatbins). The object loads on a device as it is ([`chevron::Module::from_code_object`]).
pub fn read(bytes: Vec<u8>, file: &Path) -> Result<(CodeObject, ParamTypes), String> {
    let code = CodeObject::read(bytes, &file.display().to_string());
    if code.symbols().is_none() {
        let reason = code.symbols_error().unwrap_or_default();
        return Err(format!("{}: {reason}", file.display()));
    }
    let types = match code.ptx() {
        Ok(module) => ParamTypes::from_module(module),
        Err(_) => ParamTypes::default(),
    };
    Ok((code, types))
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

#[cfg(test)]
mod tests {
    use super::*;
    use chevron_ptx::parses_on_this_thread;

    fn corpus(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../corpus/nvcc")
            .join(name)
    }

    #[test]
    fn inspect_parses_the_ptx_once_and_lists_the_code_objects_symbols() {
        let file = corpus("elementwise.sm_80.ptx");
        let before = parses_on_this_thread();
        let mut out = Vec::new();
        run(&file, false, &mut out).unwrap();
        assert_eq!(parses_on_this_thread() - before, 1);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("(ptx)") && text.contains("saxpy"), "{text}");
    }

    #[test]
    fn listing_and_loading_what_was_read_parses_once() {
        let file = corpus("elementwise.sm_80.ptx");
        let runtime = chevron::Runtime::with_devices("cpu").unwrap();
        let device = runtime.default_device().unwrap();
        let before = parses_on_this_thread();
        let (code, types) = read(read_code_object(&file).unwrap(), &file).unwrap();
        let module = chevron::Module::from_code_object(device, &code).unwrap();
        module.kernel("saxpy").unwrap();
        assert!(types.type_text("saxpy", 0).is_some());
        assert_eq!(parses_on_this_thread() - before, 1);
    }

    #[test]
    fn a_fatbin_lists_the_symbols_of_the_entry_the_rule_picks() {
        let file = corpus("elementwise.sm_80.sm_90.compute_90.fatbin");
        let mut out = Vec::new();
        run(&file, true, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("\"kind\":\"fatbin\"") && text.contains("saxpy"),
            "{text}"
        );
    }
}
