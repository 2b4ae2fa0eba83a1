//! [`Module`]: a loaded code object (CUDA's `CUmodule`) and its symbol table.
//!
//! A module is loaded from PTX text, a cubin or a fatbin (bytes or a file; the kind is detected
//! from the content). Its symbol table lists kernels, device functions and globals with their
//! mangled names, demangled C++ signatures and (for kernels) parameter layouts. Kernels are found
//! by exact symbol name, by demangled signature (`block_scan<int, 128>(int const*, int*, int)`)
//! or by plain name when unambiguous, and resolved once into a [`crate::Kernel`] (`Module::kernel`, in `launch/lookup.rs`).
//!
//! Dropping a module (and its kernels) unloads it once every stream of the device has passed
//! the point of the drop, so launches still in flight finish first.

pub(crate) mod hook;
pub(crate) mod loading;
mod parallel;

use std::path::Path;
use std::sync::Arc;

use chevron_ptx::symbols::{LookupError, Symbol, SymbolKind, SymbolTable};

use crate::backend::{self, DevicePtr};
use crate::code_object::{CodeObject, CodeObjectKind, IN_MEMORY};
use crate::device::state::Release;
use crate::device::Device;
use crate::error::{Error, Result};
use hook::{KernelHooks, LaunchHook};

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
    pub(crate) symbols_known: bool,
    /// The file name, or `<memory>`.
    pub(crate) source_name: String,
    /// The launch hooks of kernels rewritten to take a hidden argument (instrumented ones).
    pub(crate) launch_hooks: Option<Arc<KernelHooks>>,
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
        Module::read_and_load(
            device,
            Some(CodeObjectKind::Ptx),
            text.as_bytes(),
            IN_MEMORY,
        )
    }

    /// Loads a cubin.
    pub fn from_cubin(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::read_and_load(device, Some(CodeObjectKind::Cubin), bytes, IN_MEMORY)
    }

    /// Loads a fatbin (on a device that runs PTX only, the PTX entry it runs).
    pub fn from_fatbin(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::read_and_load(device, Some(CodeObjectKind::Fatbin), bytes, IN_MEMORY)
    }

    /// Loads a code object of any kind, detected from its content (see
    /// [`crate::code_object::detect`]; anything unrecognized is tried as PTX).
    pub fn from_bytes(device: &Device, bytes: &[u8]) -> Result<Module> {
        Module::read_and_load(device, None, bytes, IN_MEMORY)
    }

    /// Loads a code object of any kind read from somewhere the caller names in errors (a file
    /// it has read itself, e.g. with a size limit).
    pub fn from_named_bytes(device: &Device, bytes: &[u8], source_name: &str) -> Result<Module> {
        Module::read_and_load(device, None, bytes, source_name)
    }

    /// Loads a code object file of any kind (`.ptx`, `.cubin`, `.fatbin`).
    pub fn from_file(device: &Device, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Module::read_and_load(device, None, &bytes, &path.display().to_string())
    }

    /// Loads a code object read once (the same object may be loaded on several devices, and
    /// its symbols listed, without reading it again).
    pub fn from_code_object(device: &Device, code: &CodeObject) -> Result<Module> {
        Module::load(device, code, crate::trace::clock())
    }

    fn read_and_load(
        device: &Device,
        kind: Option<CodeObjectKind>,
        bytes: &[u8],
        source_name: &str,
    ) -> Result<Module> {
        let started = crate::trace::clock();
        let code = match kind {
            Some(kind) => CodeObject::read_as(kind, bytes, source_name),
            None => CodeObject::read(bytes, source_name),
        };
        Module::load(device, &code, started)
    }

    fn load(
        device: &Device,
        code: &CodeObject,
        started: Option<std::time::Instant>,
    ) -> Result<Module> {
        if let Some(module) = hook::load_by_hook(device, code)? {
            return Ok(module);
        }
        let loaded = loading::load(device, code)?;
        let module = Module::from_loaded(device, loaded, code.source_name(), None);
        let source_name = code.source_name();
        crate::trace::module_load(started, source_name, device.label(), code.parse_ns());
        Ok(module)
    }

    pub(crate) fn from_loaded(
        device: &Device,
        loaded: loading::Loaded,
        source_name: &str,
        launch_hooks: Option<Arc<KernelHooks>>,
    ) -> Module {
        Module {
            shared: Arc::new(ModuleShared {
                device: device.clone(),
                backend: Some(loaded.backend),
                symbols_known: loaded.symbols.is_some(),
                symbols: loaded.symbols.unwrap_or_default(),
                source_name: source_name.to_string(),
                launch_hooks,
            }),
        }
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

    /// Finds a module-scope variable (same lookup rules as [`Module::kernel`]) and returns its
    /// device address and size.
    pub fn global(&self, query: &str) -> Result<GlobalVar> {
        let name = if self.shared.symbols_known {
            self.shared
                .symbols
                .find_where(query, |s| matches!(s.kind, SymbolKind::Global { .. }))
                .map_err(|err| self.lookup_error(err, "global", query))?
                .name
                .clone()
        } else {
            query.to_string()
        };
        let (ptr, size) = self.backend().global(&name)?;
        Ok(GlobalVar { name, ptr, size })
    }

    pub(crate) fn lookup_error(&self, err: LookupError, what: &'static str, query: &str) -> Error {
        match err {
            LookupError::NotFound { candidates, .. } => Error::NotFound {
                what,
                name: query.to_string(),
                scope: self.shared.source_name.clone(),
                candidates,
            },
            ambiguous @ LookupError::Ambiguous { .. } => Error::InvalidValue {
                call: if what == "kernel" {
                    "Module::kernel"
                } else {
                    "Module::global"
                },
                message: format!("{ambiguous} in {}", self.shared.source_name),
            },
        }
    }

    /// The launch hook of kernel `name`, when the module was instrumented and it is one of the
    /// instrumented kernels.
    pub(crate) fn launch_hook(&self, name: &str) -> Option<Arc<dyn LaunchHook>> {
        self.shared.launch_hooks.as_ref()?.get(name).cloned()
    }

    pub(crate) fn backend(&self) -> &Arc<dyn backend::Module> {
        self.shared
            .backend
            .as_ref()
            .expect("the backend module is only taken when the module is dropped")
    }
}

pub(crate) fn kind_word(kind: &SymbolKind) -> &'static str {
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
