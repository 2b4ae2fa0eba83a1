//! Which loaded objects carry a statically linked NVIDIA runtime: those that asked
//! `cuGetExportTable` for a table. A launch that such a runtime makes with a configuration the
//! device can never run (too many threads, a grid too large) gets the code NVIDIA's driver
//! gives the runtime, which the runtime reports as `cudaErrorInvalidConfiguration`; other
//! callers get the documented `CUDA_ERROR_INVALID_VALUE`.
//!
//! The runtime passes the driver's code through by number (traced under CUDA 13.0's
//! `libcudart_static.a` by forcing codes out of `cuLaunchKernel`: 1 became
//! `cudaErrorInvalidValue`, 9 `cudaErrorInvalidConfiguration`, 701
//! `cudaErrorLaunchOutOfResources`, and no other code seen became 9), and a native run of a
//! program built with nvcc's defaults reports `cudaErrorInvalidConfiguration` for a block of
//! 2048 threads, so NVIDIA's driver answers the runtime with 9.
//!
//! Objects are told apart by the base address `dladdr` gives for the first frame of the stack
//! outside chevron's driver library; looked up only when a launch fails.

use std::sync::Mutex;

use super::caller::calling_object;

/// The code NVIDIA's driver gives a statically linked runtime for an impossible launch
/// configuration (undocumented; the runtime's `cudaErrorInvalidConfiguration`).
pub const RUNTIME_INVALID_CONFIGURATION: i32 = 9;

/// Base addresses of the objects that asked for an export table.
static OBJECTS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Notes that the object calling chevron now carries a statically linked runtime.
pub fn note_caller() {
    let base = calling_object();
    let mut objects = OBJECTS.lock().unwrap_or_else(|e| e.into_inner());
    if base != 0 && !objects.contains(&base) {
        objects.push(base);
    }
}

/// Whether the object calling chevron now carries a statically linked runtime.
pub fn called_by_runtime() -> bool {
    let objects = OBJECTS.lock().unwrap_or_else(|e| e.into_inner());
    if objects.is_empty() {
        return false;
    }
    objects.contains(&calling_object())
}
