//! [`Module`]: a loaded code object (CUDA's `CUmodule`) and its symbol table.
//!
//! A module is loaded from PTX text, a cubin or a fatbin (bytes or a file; the kind is detected
//! from the content). Its symbol table lists kernels, device functions and globals with their
//! mangled names, demangled C++ signatures and (for kernels) parameter layouts. Kernels are found
//! by exact symbol name, by demangled signature (`block_scan<int, 128>(int const*, int*, int)`)
//! or by plain name when unambiguous, and resolved once into a [`Kernel`].
//!
//! Dropping a module (and its kernels) unloads it once every stream of the device has passed
//! the point of the drop, so launches still in flight finish first.

use std::path::Path;
use std::sync::Arc;

use chevron_ptx::symbols::{LookupError, Symbol, SymbolKind, SymbolTable};

use crate::backend::{self, CodeImage, DevicePtr};
use crate::code_symbols;
use crate::device::Device;
use crate::device_core::Release;
use crate::error::{Error, Result};
use crate::kernel::Kernel;

/// A code object loaded on one device. Cloning gives another handle to the same module.
#[derive(Clone)]
pub struct Module {
    pub(crate) shared: Arc<ModuleShared>,
}

pub(crate) struct ModuleShared {
    pub(crate) device: Device,
    backend: Option<Arc<dyn backend::Module>>,
    symbols: SymbolTable,
    /// Whether `symbols` came from the code object (false: unknown, lookups go by exact name
    /// and arguments are checked by the configuration only).
    symbols_known: bool,
    /// The file name, or `<memory>`.
    pub(crate) source_name: String,
}

/// What kind of code object a byte string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeKind {
    /// PTX text.
    Ptx,
    /// An ELF cubin.
    Cubin,
    /// A fatbin container.
    Fatbin,
}

impl CodeKind {
    /// Detects the kind from the first bytes: ELF magic, fatbin magic, else PTX text.
    pub fn detect(bytes: &[u8]) -> CodeKind {
        if bytes.starts_with(b"\x7fELF") {
            CodeKind::Cubin
        } else if bytes.starts_with(&[0x50, 0xed, 0x55, 0xba]) {
            CodeKind::Fatbin
        } else {
            CodeKind::Ptx
        }
    }
}

/// A module-scope variable of a loaded module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalVar {
    /// The symbol name.
    pub name: String,
    /// Its device address.
    pub ptr: DevicePtr,
    /// Its size in bytes.
    pub size: u64,
}

impl Module {
    /// Loads PTX text.
    pub fn from_ptx(device: &Device, text: &str) -> Result<Module> {
        Module::load(device, CodeKind::Ptx, text.as_bytes(), "<memory>")
    }

    /// Loads a cubin.
    pub fn from_cubin(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::load(device, CodeKind::Cubin, bytes, "<memory>")
    }

    /// Loads a fatbin.
    pub fn from_fatbin(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::load(device, CodeKind::Fatbin, bytes, "<memory>")
    }

    /// Loads a code object of any kind, detected from its content.
    pub fn from_bytes(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::load(device, CodeKind::detect(bytes), bytes, "<memory>")
    }

    /// Loads a code object file of any kind (`.ptx`, `.cubin`, `.fatbin`).
    pub fn from_file(device: &Device, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path.display().to_string();
        Module::load(device, CodeKind::detect(&bytes), &bytes, &name)
    }

    fn load(device: &Device, kind: CodeKind, bytes: &[u8], source_name: &str) -> Result<Module> {
        let code_error = |message: String| Error::CodeObject {
            source_name: source_name.to_string(),
            message,
        };
        let (image, symbols, parse_error) = match kind {
            CodeKind::Ptx => {
                let text = std::str::from_utf8(bytes)
                    .map_err(|e| code_error(format!("PTX text is not UTF-8: {e}")))?;
                match code_symbols::of_ptx(text) {
                    Ok(table) => (CodeImage::Ptx(text), Some(table), None),
                    Err(err) => (CodeImage::Ptx(text), None, Some(err)),
                }
            }
            CodeKind::Cubin => (
                CodeImage::Cubin(bytes),
                code_symbols::of_binary(bytes),
                None,
            ),
            CodeKind::Fatbin => (
                CodeImage::Fatbin(bytes),
                code_symbols::of_binary(bytes),
                None,
            ),
        };
        let loaded = device.core().backend.load_module(image);
        let backend = match (loaded, parse_error) {
            (Ok(backend), _) => backend,
            // Both chevron-ptx and the backend reject the text: the parser's position is the
            // most precise report.
            (Err(_), Some(parse_error)) => return Err(code_error(parse_error.to_string())),
            (Err(Error::CodeObject { message, .. }), None) => return Err(code_error(message)),
            (Err(other), None) => return Err(other),
        };
        Ok(Module {
            shared: Arc::new(ModuleShared {
                device: device.clone(),
                backend: Some(backend),
                symbols_known: symbols.is_some(),
                symbols: symbols.unwrap_or_default(),
                source_name: source_name.to_string(),
            }),
        })
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> &Device {
        &self.shared.device
    }

    /// The file the module came from, or `<memory>`.
    pub fn source_name(&self) -> &str {
        &self.shared.source_name
    }

    /// The symbol table: kernels, device functions and globals (empty when the code object's
    /// symbols cannot be read).
    pub fn symbols(&self) -> &SymbolTable {
        &self.shared.symbols
    }

    /// The kernels, in order.
    pub fn kernels(&self) -> impl Iterator<Item = &Symbol> {
        self.shared.symbols.kernels()
    }

    /// Finds a kernel by exact (mangled) name, demangled signature, template instance or plain
    /// name when unambiguous, and resolves it.
    pub fn kernel(&self, query: &str) -> Result<Kernel> {
        if !self.shared.symbols_known {
            let function = self.backend().function(query)?;
            return Ok(Kernel::new(self.clone(), function, query.to_string(), None));
        }
        let symbol = self.find(query, "kernel")?;
        if !symbol.is_kernel() {
            return Err(Error::InvalidValue {
                call: "Module::kernel",
                message: format!(
                    "`{}` in {} is a {}, not a kernel",
                    symbol.display_name(),
                    self.shared.source_name,
                    kind_word(&symbol.kind)
                ),
            });
        }
        let function = self.backend().function(&symbol.name)?;
        Ok(Kernel::new(
            self.clone(),
            function,
            symbol.display_name().to_string(),
            Some(symbol.params.clone()),
        ))
    }

    /// Finds a module-scope variable (same lookup rules as [`Module::kernel`]) and returns its
    /// device address and size.
    pub fn global(&self, query: &str) -> Result<GlobalVar> {
        let name = if self.shared.symbols_known {
            self.find(query, "global")?.name.clone()
        } else {
            query.to_string()
        };
        let (ptr, size) = self.backend().global(&name)?;
        Ok(GlobalVar { name, ptr, size })
    }

    fn find(&self, query: &str, what: &'static str) -> Result<&Symbol> {
        self.shared.symbols.find(query).map_err(|err| match err {
            LookupError::NotFound { candidates, .. } => Error::NotFound {
                what,
                name: query.to_string(),
                scope: self.shared.source_name.clone(),
                candidates,
            },
            ambiguous @ LookupError::Ambiguous { .. } => Error::InvalidValue {
                call: "Module::kernel",
                message: format!("{ambiguous} in {}", self.shared.source_name),
            },
        })
    }

    pub(crate) fn backend(&self) -> &Arc<dyn backend::Module> {
        self.shared
            .backend
            .as_ref()
            .expect("the backend module is only taken when the module is dropped")
    }
}

fn kind_word(kind: &SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Kernel => "kernel",
        SymbolKind::DeviceFunction => "device function",
        SymbolKind::Global { .. } => "global variable",
    }
}

impl Drop for ModuleShared {
    fn drop(&mut self) {
        if let Some(backend) = self.backend.take() {
            self.device
                .core()
                .release(Release::Object(Box::new(backend)));
        }
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("source", &self.shared.source_name)
            .field("device", &self.shared.device.label())
            .field("symbols", &self.shared.symbols.symbols.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::CodeKind;

    #[test]
    fn detects_code_kinds_by_magic() {
        assert_eq!(CodeKind::detect(b"\x7fELF\x02\x01"), CodeKind::Cubin);
        assert_eq!(
            CodeKind::detect(&[0x50, 0xed, 0x55, 0xba, 1, 0]),
            CodeKind::Fatbin
        );
        assert_eq!(CodeKind::detect(b"//\n.version 8.0"), CodeKind::Ptx);
    }
}
