//! Kernel attributes a program sets with `cudaFuncSetAttribute` and reads back with
//! `cudaFuncGetAttributes`, by kernel (the address of its registry entry); and the dynamic shared memory limit a launch is held
//! to, as CUDA holds it: above the default (the device's shared memory per block less the
//! kernel's static shared memory, 48 KiB on NVIDIA's GPUs) only after the program raised it.

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::Mutex;

use chevron::Kernel;

use crate::errors::{CudaError, CudaResult, INVALID_VALUE};
use crate::registry::KernelEntry;
use crate::state::lock;

/// `cudaFuncAttributeMaxDynamicSharedMemorySize`.
pub const MAX_DYNAMIC_SHARED_MEMORY_SIZE: c_int = 8;

/// The dynamic shared memory limit set per kernel (registry entry address → bytes).
static MAX_DYNAMIC_SHARED: Mutex<Option<HashMap<usize, c_int>>> = Mutex::new(None);

/// Records the limit `cudaFuncSetAttribute` set for the kernel `entry`.
pub fn set_max_dynamic_shared(entry: &KernelEntry, bytes: c_int) {
    lock(&MAX_DYNAMIC_SHARED)
        .get_or_insert_with(HashMap::new)
        .insert(key(entry), bytes);
}

/// The limit set for the kernel `entry`, if any.
pub fn max_dynamic_shared(entry: &KernelEntry) -> Option<c_int> {
    lock(&MAX_DYNAMIC_SHARED)
        .as_ref()
        .and_then(|set| set.get(&key(entry)).copied())
}

fn key(entry: &KernelEntry) -> usize {
    entry as *const KernelEntry as usize
}

/// The dynamic shared memory a launch of `kernel` may use without a raised limit.
pub fn default_max_dynamic_shared(kernel: &Kernel) -> u32 {
    kernel
        .device()
        .limits()
        .max_shared_per_block
        .saturating_sub(kernel.static_shared_bytes())
}

/// Refuses a launch of `kernel` (of the registry's `entry`) with more dynamic
/// shared memory than its limit: `cudaErrorInvalidValue`, as NVIDIA's runtime answers (measured
/// on an H200, CUDA 13.0). One comparison on the launch path; the table only above the default.
#[inline]
pub fn check_dynamic_shared(entry: &KernelEntry, kernel: &Kernel, bytes: u32) -> CudaResult {
    if bytes == 0 {
        return Ok(());
    }
    let default = default_max_dynamic_shared(kernel);
    if bytes <= default {
        return Ok(());
    }
    let limit = max_dynamic_shared(entry).map_or(default, |set| set.max(0) as u32);
    if bytes <= limit {
        return Ok(());
    }
    Err(CudaError::new(
        INVALID_VALUE,
        format!(
            "kernel `{}`: {bytes} bytes of dynamic shared memory exceed its limit of {limit} \
             (raise it with cudaFuncSetAttribute(…, cudaFuncAttributeMaxDynamicSharedMemorySize, …))",
            kernel.display_name()
        ),
    ))
}
