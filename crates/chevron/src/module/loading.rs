//! Loading a [`CodeObject`] onto a device, with its symbol table.
//!
//! The device's backend declares what it runs ([`crate::backend::Device::code_targets`]);
//! [`CodeObject::for_targets`] gives the object itself or the fatbin entry the device runs, and
//! its symbol table is the one of that entry. Nothing is parsed here: the code object was read
//! once. When chevron-ptx cannot parse PTX that the backend accepts (the driver may know newer
//! syntax), the module still loads and its kernels are found by exact name, without argument
//! checks.

use std::sync::Arc;

use chevron_ptx::symbols::SymbolTable;

use crate::backend;
use crate::code_object::{CodeObject, CodeObjectKind};
use crate::device::Device;
use crate::error::{Error, Result};

/// A loaded backend module and what is known of its symbols.
pub(crate) struct Loaded {
    pub(crate) backend: Arc<dyn backend::Module>,
    pub(crate) symbols: Option<SymbolTable>,
}

/// Loads `code` on `device`; errors name the code object's source.
pub(crate) fn load(device: &Device, code: &CodeObject) -> Result<Loaded> {
    let backend_device = &device.core().backend;
    let targets = backend_device.code_targets();
    let chosen = code.for_targets(&targets)?;
    let symbols = chosen.symbols_on(&targets).cloned();
    let named = |message: String| Error::CodeObject {
        source_name: code.source_name().to_string(),
        message,
    };
    match backend_device.load_module(&chosen) {
        Ok(backend) => Ok(Loaded { backend, symbols }),
        Err(err) => match (chosen.kind(), chosen.ptx()) {
            // Both reject the text: the parser's position is the most precise report.
            (CodeObjectKind::Ptx, Err(Error::CodeObject { message, .. })) => Err(named(message)),
            _ => match err {
                Error::CodeObject { message, .. } => Err(named(message)),
                other => Err(other),
            },
        },
    }
}
