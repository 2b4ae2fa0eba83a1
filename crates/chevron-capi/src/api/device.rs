//! Devices: how many, by index or label, what they are, and device-wide synchronization.

use std::ffi::c_char;

use chevron::BackendKind;

use super::{chevron_device, device_handles, lookup, read_str, runtime, write_out, DEVICES};
use crate::error::{entry, CapiError};
use crate::status::chevron_status;

/// Which backend runs a device.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum chevron_backend {
    /// An NVIDIA GPU through the CUDA driver.
    CHEVRON_BACKEND_CUDA = 0,
    /// The CPU device (PTX run by chevron's interpreter).
    CHEVRON_BACKEND_CPU = 1,
    /// A backend this header does not name; the device's label says which.
    CHEVRON_BACKEND_OTHER = 255,
}

/// What a device is and what it can run.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chevron_device_info {
    /// Marketing name, NUL-terminated (truncated to fit).
    pub name: [c_char; 128],
    /// `cuda:0`, `cpu:1`: the name `CHEVRON_DEVICES` uses, NUL-terminated.
    pub label: [c_char; 32],
    /// The backend.
    pub backend: chevron_backend,
    /// Ordinal within the backend.
    pub ordinal: u32,
    /// Compute capability, major.
    pub compute_capability_major: u32,
    /// Compute capability, minor.
    pub compute_capability_minor: u32,
    /// Streaming multiprocessors (CPU: worker threads).
    pub multiprocessors: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Maximum threads per block.
    pub max_threads_per_block: u32,
    /// Maximum block dimensions.
    pub max_block_dim: [u32; 3],
    /// Maximum grid dimensions.
    pub max_grid_dim: [u32; 3],
    /// Shared memory per block without opt-in, in bytes.
    pub max_shared_per_block: u32,
    /// Shared memory per block with opt-in, in bytes.
    pub max_shared_per_block_optin: u32,
    /// Total device memory in bytes.
    pub total_memory: u64,
}

/// Copies `text` into a fixed C string field, truncating and NUL-terminating.
fn fill_text<const N: usize>(field: &mut [c_char; N], text: &str) {
    let bytes = text.as_bytes();
    let n = bytes.len().min(N - 1);
    for (slot, &b) in field.iter_mut().zip(&bytes[..n]) {
        *slot = b as c_char;
    }
    field[n] = 0;
}

/// Stores the number of devices in use (ordered by `CHEVRON_DEVICES`; the first is the
/// default) in `*count`.
///
/// # Safety
/// `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_device_count(count: *mut u32) -> chevron_status {
    entry("chevron_device_count", || {
        let n = device_handles()?.len() as u32;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(count, "count", n)? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores device number `index` (0 is the default device) in `*device`.
///
/// # Safety
/// `device` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_device_get(
    index: u32,
    device: *mut chevron_device,
) -> chevron_status {
    entry("chevron_device_get", || {
        let handles = device_handles()?;
        let Some(&handle) = handles.get(index as usize) else {
            let why = runtime()?
                .backends()
                .iter()
                .filter_map(|b| {
                    b.unavailable
                        .as_ref()
                        .map(|r| format!("{}: {r}", b.backend.as_str()))
                })
                .collect::<Vec<_>>()
                .join("; ");
            return Err(CapiError::new(
                if handles.is_empty() {
                    chevron_status::CHEVRON_ERROR_UNAVAILABLE
                } else {
                    chevron_status::CHEVRON_ERROR_NOT_FOUND
                },
                format!(
                    "device {index} requested, {} in use{}",
                    handles.len(),
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(" ({why})")
                    }
                ),
            ));
        };
        // SAFETY: forwarded from the caller.
        unsafe { write_out(device, "device", handle as usize as chevron_device)? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores the device labelled `label` (`cuda:0`, `cpu:1`) in `*device`.
///
/// # Safety
/// `label` is a NUL-terminated string; `device` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_device_by_label(
    label: *const c_char,
    device: *mut chevron_device,
) -> chevron_status {
    entry("chevron_device_by_label", || {
        // SAFETY: forwarded from the caller.
        let label = unsafe { read_str(label, "label")? };
        let handles = device_handles()?;
        let wanted = runtime()?.device(label)?;
        let handle = handles
            .iter()
            .copied()
            .find(|&h| DEVICES.get(h).is_ok_and(|d| d.same_device(wanted)))
            .ok_or_else(|| CapiError::invalid(format!("device `{label}` has no handle")))?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(device, "device", handle as usize as chevron_device)? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Describes `device` in `*info`.
///
/// # Safety
/// `info` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_device_get_info(
    device: chevron_device,
    info: *mut chevron_device_info,
) -> chevron_status {
    entry("chevron_device_get_info", || {
        let device = lookup(&DEVICES, device)?;
        let d = device.info();
        let mut out = chevron_device_info {
            name: [0; 128],
            label: [0; 32],
            backend: match d.backend {
                BackendKind::Cuda => chevron_backend::CHEVRON_BACKEND_CUDA,
                BackendKind::Cpu => chevron_backend::CHEVRON_BACKEND_CPU,
                _ => chevron_backend::CHEVRON_BACKEND_OTHER,
            },
            ordinal: d.ordinal,
            compute_capability_major: d.compute_capability.0,
            compute_capability_minor: d.compute_capability.1,
            multiprocessors: d.multiprocessors,
            warp_size: d.warp_size,
            max_threads_per_block: d.max_threads_per_block,
            max_block_dim: d.max_block_dim,
            max_grid_dim: d.max_grid_dim,
            max_shared_per_block: d.max_shared_per_block,
            max_shared_per_block_optin: d.max_shared_per_block_optin,
            total_memory: d.total_memory,
        };
        fill_text(&mut out.name, &d.name);
        fill_text(&mut out.label, device.label());
        // SAFETY: forwarded from the caller.
        unsafe { write_out(info, "info", out)? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Waits until all work on all streams of `device` is done; reports a fault of that work.
#[no_mangle]
pub extern "C" fn chevron_device_synchronize(device: chevron_device) -> chevron_status {
    entry("chevron_device_synchronize", || {
        lookup(&DEVICES, device)?.synchronize()?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
