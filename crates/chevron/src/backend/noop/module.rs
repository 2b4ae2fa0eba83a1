//! Code objects on the no-op device: what the CPU device loads, loaded the same way (the
//! [`CodeObject`]'s parsed PTX into the interpreter's `Program`, over the device's allocation
//! table: module variables allocated and initialised), and each kernel's launch check.

use std::any::Any;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Arc;

use chevron_ptx::interp::Program;
use chevron_ptx::ir::{FunctionKind, Item};

use crate::backend::kernel_limits::KernelLimits;
use crate::backend::{DevicePtr, Function, LaunchConfig, Module};
use crate::code_object::CodeObject;
use crate::error::{Error, Result};

use super::memory::NoopMemory;

/// A PTX module loaded on one no-op device.
pub(super) struct NoopModule {
    /// Holds the module's variables.
    program: Program,
    kernels: BTreeMap<String, Arc<NoopFunction>>,
    device: String,
}

/// A kernel of a [`NoopModule`]: what its launches are checked against.
#[derive(Clone)]
pub(super) struct NoopFunction {
    name: String,
    limits: KernelLimits,
    /// How many parameters it takes.
    params: usize,
    /// The memory it was loaded into: its device's.
    memory: Arc<chevron_ptx::interp::DeviceMemory>,
}

/// Loads `code` (already the object for the device's targets) on `device`.
pub(super) fn load(device: &NoopMemory, code: &CodeObject) -> Result<NoopModule> {
    let module = code.ptx()?;
    let program = Program::load(module, &device.table).map_err(|e| Error::CodeObject {
        source_name: code.source_name().to_string(),
        message: format!("cannot load on {}: {e}", device.label),
    })?;
    let mut kernels = BTreeMap::new();
    for item in &module.items {
        let Item::Function(function) = item else {
            continue;
        };
        if function.kind != FunctionKind::Entry || function.body.is_none() {
            continue;
        }
        let Some(handle) = program.kernel(&function.name) else {
            continue;
        };
        let static_shared = program.kernel_static_shared(&handle);
        let kernel = NoopFunction {
            name: function.name.clone(),
            limits: KernelLimits::of(
                function,
                device.info.max_threads_per_block,
                u32::try_from(static_shared).unwrap_or(u32::MAX),
            ),
            params: handle.params.len(),
            memory: Arc::clone(&device.table),
        };
        kernels.insert(kernel.name.clone(), Arc::new(kernel));
    }
    Ok(NoopModule {
        program,
        kernels,
        device: device.label.clone(),
    })
}

impl NoopFunction {
    /// Checks a launch of `function` on `device`: the kernel's device, the configuration, one
    /// non-null argument pointer per parameter (nothing is read through them); the kernel.
    pub fn check_launch<'a>(
        device: &NoopMemory,
        function: &'a dyn Function,
        config: &LaunchConfig,
        args: &[*mut c_void],
    ) -> Result<&'a NoopFunction> {
        let kernel = function
            .as_any()
            .downcast_ref::<NoopFunction>()
            .filter(|kernel| Arc::ptr_eq(&kernel.memory, &device.table))
            .ok_or_else(|| Error::InvalidValue {
                call: "Stream::launch",
                message: format!(
                    "kernel `{}` was not loaded on this stream's device ({})",
                    function.name(),
                    device.label
                ),
            })?;
        kernel
            .limits
            .check(config, &device.info)
            .map_err(|message| Error::LaunchConfig {
                kernel: kernel.name.clone(),
                device: device.label.clone(),
                message,
            })?;
        kernel.check_args(args)?;
        Ok(kernel)
    }

    /// Checks that `args` holds one non-null pointer per parameter.
    pub fn check_args(&self, args: &[*mut c_void]) -> Result<()> {
        let error = |parameter, message| Error::Argument {
            kernel: self.name.clone(),
            parameter,
            message,
        };
        if args.len() != self.params {
            let message = format!("{} parameters, got {} arguments", self.params, args.len());
            return Err(error(None, message));
        }
        match args.iter().position(|arg| arg.is_null()) {
            Some(index) => Err(error(
                Some(index),
                format!("argument {index} is a null pointer"),
            )),
            None => Ok(()),
        }
    }
}

impl Module for NoopModule {
    fn function(&self, name: &str) -> Result<Arc<dyn Function>> {
        match self.kernels.get(name) {
            Some(kernel) => Ok(Arc::clone(kernel) as Arc<dyn Function>),
            None => Err(Error::NotFound {
                what: "kernel",
                name: name.to_string(),
                scope: format!("a PTX module on {}", self.device),
                candidates: self.kernels.keys().take(5).cloned().collect(),
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

impl Function for NoopFunction {
    fn name(&self) -> &str {
        &self.name
    }

    fn max_threads_per_block(&self) -> u32 {
        self.limits.max_threads
    }

    fn static_shared_bytes(&self) -> u32 {
        self.limits.static_shared
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
