//! Loading code objects onto a device, with their symbol tables.
//!
//! PTX is parsed by chevron-ptx for its symbol table; cubins and fatbins are read by
//! [`crate::code_object`]. A fatbin goes to the CUDA driver as it is; other devices get the
//! fatbin's PTX entry for the newest architecture (they run PTX). When chevron-ptx cannot parse
//! PTX that the backend accepts (the driver may know newer syntax), the module still loads and
//! its kernels are found by exact name, without argument checks.

use std::sync::Arc;

use chevron_ptx::symbols::SymbolTable;

use crate::backend::{self, BackendKind, CodeImage};
use crate::code_object::{self, CodeObjectKind, EntryKind};
use crate::device::Device;
use crate::error::{Error, Result};

/// A loaded backend module and what is known of its symbols.
pub(crate) struct Loaded {
    pub(crate) backend: Arc<dyn backend::Module>,
    pub(crate) symbols: Option<SymbolTable>,
    /// Nanoseconds spent parsing PTX for the symbol table (0 for binaries).
    pub(crate) parse_ns: u64,
}

/// Loads `bytes` of `kind` on `device`; errors name `source_name`.
pub(crate) fn load(
    device: &Device,
    kind: CodeObjectKind,
    bytes: &[u8],
    source_name: &str,
) -> Result<Loaded> {
    let code_error = |message: String| Error::CodeObject {
        source_name: source_name.to_string(),
        message,
    };
    match kind {
        CodeObjectKind::Ptx => {
            let text = std::str::from_utf8(bytes)
                .map_err(|e| code_error(format!("PTX text is not UTF-8: {e}")))?;
            load_ptx(device, text, source_name)
        }
        CodeObjectKind::Fatbin if device.backend() != BackendKind::Cuda => {
            let text = fatbin_ptx(bytes).map_err(code_error)?;
            load_ptx(device, &text, source_name)
        }
        CodeObjectKind::Cubin | CodeObjectKind::Fatbin => {
            let symbols = code_object::binary_symbols(bytes).ok().or_else(|| {
                let text = fatbin_ptx(bytes).ok()?;
                chevron_ptx::parse(&text)
                    .ok()
                    .map(|m| SymbolTable::from_module(&m))
            });
            let image = if kind == CodeObjectKind::Cubin {
                CodeImage::Cubin(bytes)
            } else {
                CodeImage::Fatbin(bytes)
            };
            let backend = device
                .core()
                .backend
                .load_module(image)
                .map_err(|err| match err {
                    Error::CodeObject { message, .. } => code_error(message),
                    other => other,
                })?;
            Ok(Loaded {
                backend,
                symbols,
                parse_ns: 0,
            })
        }
    }
}

pub(crate) fn load_ptx(device: &Device, text: &str, source_name: &str) -> Result<Loaded> {
    let parse_started = std::time::Instant::now();
    let parsed = chevron_ptx::parse(text).map(|module| SymbolTable::from_module(&module));
    let parse_ns = parse_started.elapsed().as_nanos() as u64;
    match (
        device.core().backend.load_module(CodeImage::Ptx(text)),
        parsed,
    ) {
        (Ok(backend), parsed) => Ok(Loaded {
            backend,
            symbols: parsed.ok(),
            parse_ns,
        }),
        // Both reject the text: the parser's position is the most precise report.
        (Err(_), Err(parse_error)) => Err(Error::CodeObject {
            source_name: source_name.to_string(),
            message: parse_error.to_string(),
        }),
        (Err(Error::CodeObject { message, .. }), Ok(_)) => Err(Error::CodeObject {
            source_name: source_name.to_string(),
            message,
        }),
        (Err(other), Ok(_)) => Err(other),
    }
}

/// The PTX text of a fatbin's PTX entry for the newest architecture.
pub(crate) fn fatbin_ptx(bytes: &[u8]) -> std::result::Result<String, String> {
    let entries = code_object::parse_fatbin(bytes).map_err(|e| e.to_string())?;
    let newest = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Ptx)
        .max_by_key(|e| e.arch)
        .ok_or_else(|| "the fatbin holds no PTX, and this device runs PTX only".to_string())?;
    newest.ptx_text().map_err(|e| e.to_string())
}
