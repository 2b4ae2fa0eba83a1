//! The checks and argument packing of a launch on the CPU device, shared by streams
//! (`stream.rs`) and graphs (`graph.rs`, which checks each launch step once at instantiation).

use std::ffi::c_void;
use std::sync::Arc;

use crate::backend::{Function, LaunchConfig};
use crate::error::{Error, Result};

use super::device_core::DeviceCore;
use super::module::{CpuFunction, LoadedKernel};

/// Checks a launch of `function` on `device` and packs its arguments into a parameter buffer.
///
/// # Safety
/// As `Stream::launch`: `args` points to one readable value per parameter, valid for the call.
pub(super) unsafe fn prepare_launch(
    device: &DeviceCore,
    function: &dyn Function,
    config: &LaunchConfig,
    args: &[*mut c_void],
) -> Result<(Arc<LoadedKernel>, Vec<u8>)> {
    let function = function
        .as_any()
        .downcast_ref::<CpuFunction>()
        .ok_or_else(|| Error::InvalidValue {
            call: "Stream::launch",
            message: format!(
                "kernel `{}` was not loaded on a CPU device",
                function.name()
            ),
        })?;
    let kernel = &function.kernel;
    // The program was loaded into its device's memory: same memory, same device.
    if !Arc::ptr_eq(kernel.program.memory(), device.memory().shared()) {
        return Err(Error::InvalidValue {
            call: "Stream::launch",
            message: format!(
                "kernel `{}` was loaded on another device than this stream's ({})",
                kernel.name,
                device.label()
            ),
        });
    }
    check_config(device, function, config)?;
    // SAFETY: forwarded from the caller.
    let params = unsafe { pack_params(kernel, args) }?;
    Ok((Arc::clone(kernel), params))
}

fn check_config(device: &DeviceCore, function: &CpuFunction, config: &LaunchConfig) -> Result<()> {
    let kernel = &function.kernel;
    kernel
        .limits
        .check(config, device.info())
        .map_err(|message| Error::LaunchConfig {
            kernel: kernel.name.clone(),
            device: device.label().to_string(),
            message,
        })
}

/// Packs one value per parameter into `kernel`'s parameter buffer, checking the count.
///
/// # Safety
/// As `Stream::launch`: `args` points to one readable value per parameter, valid for the call.
pub(super) unsafe fn pack_params(kernel: &LoadedKernel, args: &[*mut c_void]) -> Result<Vec<u8>> {
    if args.len() != kernel.params.len() {
        return Err(Error::Argument {
            kernel: kernel.name.clone(),
            parameter: None,
            message: format!(
                "{} parameters, got {} arguments",
                kernel.params.len(),
                args.len()
            ),
        });
    }
    let mut params = vec![0u8; kernel.param_bytes];
    for (index, (layout, &arg)) in kernel.params.iter().zip(args).enumerate() {
        if arg.is_null() {
            return Err(Error::Argument {
                kernel: kernel.name.clone(),
                parameter: Some(index),
                message: format!("argument {index} (`{}`) is a null pointer", layout.name),
            });
        }
        let start = layout.offset as usize;
        let size = layout.size as usize;
        // SAFETY: the contract of `Stream::launch` makes the caller guarantee that `args`
        // holds one pointer per parameter, in order, each pointing to a readable value of
        // that parameter's size (`layout.size`, from the kernel's declaration), valid for
        // the duration of this call. `params` is a distinct allocation.
        let value = unsafe { std::slice::from_raw_parts(arg.cast::<u8>(), size) };
        params[start..start + size].copy_from_slice(value);
    }
    Ok(params)
}
