//! `{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}` (CUDART_INTERFACE): how the runtime loads the
//! program's fatbins and finds a device's primary context.
//!
//! | slot | signature | chevron |
//! |---|---|---|
//! | 1 | `(CUmodule*, const fatbin_wrapper*)` | [`module_from_fatbin_wrapper`] |
//! | 2 | `(CUcontext*, CUdevice) -> CUresult` | [`primary_context`]: retains the primary context |
//! | 6 | `(CUmodule*, const fatbin_wrapper*, void*, void*, u32) -> CUresult` | [`module_from_fatbin_wrapper_ext`] |
//! | 7 | `(usize) -> CUresult` | [`no_op`] |
//! | 8 | `(const fatbin_header*, CUmodule*, void*, void*, u32) -> CUresult` | [`module_from_fatbin`] |
//!
//! Signatures from ZLUDA's `dark_api` crate; slots 1, 6 and 8 go through `cuModuleLoadData`'s
//! path, so the runtime's kernels are chevron modules and functions (launched through
//! `cuLaunchKernel`, their faults naming the kernel). The extra arguments of 6 and 8 (NULL in
//! every call traced from CUDA 13.0's runtime) are not read.

use std::ffi::{c_int, c_void};

use crate::context::cuDevicePrimaryCtxRetain;
use crate::module::cuModuleLoadData;
use crate::result::{CUresult, SUCCESS};

/// Slot 1: a module from a fatbin wrapper (`__cudaRegisterFatBinary`'s argument).
///
/// # Safety
/// As `cuModuleLoadData`.
pub unsafe extern "C" fn module_from_fatbin_wrapper(
    module: *mut *mut c_void,
    wrapper: *const c_void,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe { cuModuleLoadData(module, wrapper) }
}

/// Slot 6: as slot 1, with three arguments chevron does not read.
///
/// # Safety
/// As `cuModuleLoadData`.
pub unsafe extern "C" fn module_from_fatbin_wrapper_ext(
    module: *mut *mut c_void,
    wrapper: *const c_void,
    _: *mut c_void,
    _: *mut c_void,
    _: u32,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe { cuModuleLoadData(module, wrapper) }
}

/// Slot 8: a module from a bare fatbin, the module's out-pointer second.
///
/// # Safety
/// As `cuModuleLoadData`.
pub unsafe extern "C" fn module_from_fatbin(
    fatbin: *const c_void,
    module: *mut *mut c_void,
    _: *mut c_void,
    _: *mut c_void,
    _: u32,
) -> CUresult {
    // SAFETY: forwarded from the caller.
    unsafe { cuModuleLoadData(module, fatbin) }
}

/// Slot 2: device `device`'s primary context, retained.
pub extern "C" fn primary_context(context: *mut *mut c_void, device: c_int) -> CUresult {
    cuDevicePrimaryCtxRetain(context, device)
}

/// Slot 7: nothing to do on chevron.
pub extern "C" fn no_op(_: usize) -> CUresult {
    SUCCESS
}
