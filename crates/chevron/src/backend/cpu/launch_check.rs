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
    let invalid = |message: String| Error::LaunchConfig {
        kernel: kernel.name.clone(),
        device: device.label().to_string(),
        message,
    };
    let info = device.info();
    if config.grid.contains(&0) || config.block.contains(&0) {
        return Err(invalid(format!(
            "grid {:?} and block {:?} must not have a zero dimension",
            config.grid, config.block
        )));
    }
    if let Some(required) = kernel.required_block {
        if config.block != required {
            return Err(invalid(format!(
                "block {:?}, the kernel requires {required:?} (.reqntid)",
                config.block
            )));
        }
    }
    let threads = config.block.iter().fold(1u64, |acc, &d| acc * u64::from(d));
    let limit = function.max_threads_per_block();
    if threads > u64::from(limit) {
        return Err(invalid(format!(
            "block {:?} has {threads} threads, the kernel allows at most {limit}",
            config.block
        )));
    }
    let shared = u64::from(config.shared_bytes) + u64::from(function.static_shared_bytes());
    if shared > u64::from(info.max_shared_per_block_optin) {
        return Err(invalid(format!(
            "{shared} bytes of shared memory per block, the device allows at most {}",
            info.max_shared_per_block_optin
        )));
    }
    Ok(())
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
