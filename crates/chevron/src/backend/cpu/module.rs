//! Code objects on the CPU device: PTX parsed and loaded into the interpreter, kernels resolved
//! once at load time.
//!
//! The CPU device runs PTX only (its `code_targets`); module loading hands it the parsed PTX of
//! the [`CodeObject`], or of the fatbin entry [`crate::code_object::select_entry`] picks.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock, Weak};

use chevron_ptx::interp::{KernelHandle, Program};
use chevron_ptx::ir::{self, FunctionKind, Item};
use chevron_ptx::symbols::{self, ParamLayout};

use crate::backend::kernel_limits::KernelLimits;
use crate::backend::{DevicePtr, Function, Module};
use crate::code_object::CodeObject;
use crate::error::{Error, Result};

use super::device_core::DeviceCore;
use super::shared_usage::SharedUsage;
use super::tier::KernelTier;

/// A PTX module loaded on one CPU device.
pub struct CpuModule {
    program: Arc<Program>,
    kernels: BTreeMap<String, Arc<CpuFunction>>,
    device: String,
    _globals: GlobalsCharge,
}

/// The module's globals, counted against the device's capacity while the module lives.
struct GlobalsCharge {
    device: Arc<DeviceCore>,
    bytes: u64,
}

impl Drop for GlobalsCharge {
    fn drop(&mut self) {
        self.device.memory().refund(self.bytes);
    }
}

/// A kernel of a [`CpuModule`], with everything a launch needs resolved.
pub struct CpuFunction {
    /// Shared with queued launches, which keep the kernel (and its program) alive.
    pub(crate) kernel: Arc<LoadedKernel>,
}

/// What a launch of one kernel needs.
pub(crate) struct LoadedKernel {
    /// The loaded program the kernel belongs to.
    pub(crate) program: Arc<Program>,
    /// The interpreter's handle of the kernel.
    pub(crate) handle: KernelHandle,
    /// Where each parameter goes in the parameter buffer.
    pub(crate) params: Vec<ParamLayout>,
    /// Size of the parameter buffer in bytes.
    pub(crate) param_bytes: usize,
    /// The kernel's symbol name.
    pub(crate) name: String,
    /// Its `.reqntid`, `.maxntid` and static shared memory.
    pub(crate) limits: KernelLimits,
    /// Interpreted or compiled (see `tier.rs`).
    pub(crate) tier: KernelTier,
    /// The module's kernels by name, for the child grids this kernel launches from device
    /// code (`child_grids.rs`).
    pub(crate) siblings: Siblings,
}

/// A module's kernels by name, shared by each of them (set once all are loaded; weak, so a
/// kernel does not keep its siblings alive).
pub(crate) type Siblings = Arc<OnceLock<HashMap<String, Weak<LoadedKernel>>>>;

/// Loads the PTX of `code` (already parsed: the CPU device never parses text) on `device`.
pub(crate) fn load(device: &Arc<DeviceCore>, code: &CodeObject) -> Result<Arc<CpuModule>> {
    let module: &ir::Module = code.ptx()?;
    let source_name = code.source_name();
    let code_error = |message: String| Error::CodeObject {
        source_name: source_name.to_string(),
        message,
    };
    let global_bytes = Program::global_bytes(module);
    device
        .memory()
        .charge(global_bytes, "the module's .global and .const variables")?;
    // From here on, dropping the charge (on any error below too) gives the bytes back.
    let globals = GlobalsCharge {
        device: Arc::clone(device),
        bytes: global_bytes,
    };
    let program = Program::load(module, device.memory().shared())
        .map_err(|e| code_error(format!("cannot load on {}: {e}", device.label())))?;
    let program = Arc::new(program);
    let shared = SharedUsage::new(module);
    let mut kernels = BTreeMap::new();
    let siblings = Siblings::default();
    for item in &module.items {
        let Item::Function(function) = item else {
            continue;
        };
        if function.kind != FunctionKind::Entry || function.body.is_none() {
            continue;
        }
        let handle = program.kernel(&function.name).ok_or_else(|| {
            code_error(format!(
                "kernel `{}` was parsed but the interpreter did not load it",
                function.name
            ))
        })?;
        let params = param_layout(function, &handle).map_err(code_error)?;
        let param_bytes = usize::try_from(handle.param_size).unwrap_or(usize::MAX);
        let kernel = LoadedKernel {
            program: Arc::clone(&program),
            handle,
            params,
            param_bytes,
            name: function.name.clone(),
            limits: KernelLimits::of(
                function,
                device.info().max_threads_per_block,
                shared.static_bytes(&function.name),
            ),
            tier: KernelTier::new(device.deterministic()),
            siblings: Arc::clone(&siblings),
        };
        let function = CpuFunction {
            kernel: Arc::new(kernel),
        };
        kernels.insert(function.kernel.name.clone(), Arc::new(function));
    }
    let by_name = kernels
        .iter()
        .map(|(name, function)| (name.clone(), Arc::downgrade(&function.kernel)))
        .collect();
    let _ = siblings.set(by_name);
    Ok(Arc::new(CpuModule {
        program,
        kernels,
        device: device.label().to_string(),
        _globals: globals,
    }))
}

/// Where each parameter goes: the interpreter's layout (what it reads), the declared names.
fn param_layout(
    function: &ir::Function,
    handle: &KernelHandle,
) -> std::result::Result<Vec<ParamLayout>, String> {
    let declared = symbols::layout_params(&function.params);
    let fits = handle.params.iter().all(|&(offset, size)| {
        offset
            .checked_add(size)
            .is_some_and(|end| end <= handle.param_size)
            && u32::try_from(offset + size).is_ok()
    });
    if declared.len() != handle.params.len() || !fits {
        return Err(format!(
            "kernel `{}`: the interpreter's parameter layout {:?} ({} bytes) does not match \
             the {} declared parameters",
            function.name,
            handle.params,
            handle.param_size,
            declared.len()
        ));
    }
    Ok(declared
        .into_iter()
        .zip(&handle.params)
        .map(|(mut param, &(offset, size))| {
            // Both fit in u32: checked above.
            param.offset = offset as u32;
            param.size = size as u32;
            param
        })
        .collect())
}

impl Module for CpuModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Function>> {
        match self.kernels.get(name) {
            Some(kernel) => Ok(Arc::clone(kernel) as Arc<dyn Function>),
            None => Err(Error::NotFound {
                what: "kernel",
                name: name.to_string(),
                scope: format!("a PTX module on {}", self.device),
                candidates: candidates(name, self.kernels.keys()),
            }),
        }
    }

    fn global(&self, name: &str) -> Result<(DevicePtr, u64)> {
        self.program
            .global_address(name)
            .ok_or_else(|| Error::NotFound {
                what: "global",
                name: name.to_string(),
                scope: format!("a PTX module on {}", self.device),
                candidates: Vec::new(),
            })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Up to five kernel names that contain the query or are contained in it.
fn candidates<'a>(query: &str, names: impl Iterator<Item = &'a String>) -> Vec<String> {
    names
        .filter(|name| name.contains(query) || query.contains(name.as_str()))
        .take(5)
        .cloned()
        .collect()
}

impl Function for CpuFunction {
    fn name(&self) -> &str {
        &self.kernel.name
    }

    fn max_threads_per_block(&self) -> u32 {
        self.kernel.limits.max_threads
    }

    fn static_shared_bytes(&self) -> u32 {
        self.kernel.limits.static_shared
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
