//! Modules (code objects: PTX, cubin, fatbin; from bytes or files) and their kernels, found by
//! plain name, exact symbol name or demangled C++ signature.

use std::ffi::{c_char, c_void, CStr};

use chevron::Module;

use super::{
    chevron_device, chevron_kernel, chevron_module, handle_of, lookup, read_str, release,
    write_out, DEVICES, KERNELS, MODULES,
};
use crate::error::{entry, CapiError};
use crate::status::chevron_status;

/// Loads a code object (PTX text, cubin or fatbin, detected from its content) on `device`.
/// With `size == 0`, `data` is NUL-terminated PTX text. The bytes are not used after the call.
///
/// # Safety
/// `data` points to `size` readable bytes (or a NUL-terminated string when `size` is 0);
/// `module` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_module_load(
    device: chevron_device,
    data: *const c_void,
    size: usize,
    module: *mut chevron_module,
) -> chevron_status {
    entry("chevron_module_load", || {
        let device = lookup(&DEVICES, device)?;
        if data.is_null() {
            return Err(CapiError::invalid("`data` is NULL"));
        }
        if !chevron::ffi::c_array_fits::<u8>(size) {
            return Err(CapiError::invalid(format!("`size` = {size} is not a size")));
        }
        let bytes: &[u8] = if size == 0 {
            // SAFETY: NUL-terminated when size is 0, by the caller's contract.
            unsafe { CStr::from_ptr(data as *const c_char) }.to_bytes()
        } else {
            // SAFETY: `size` readable bytes by the caller's contract.
            unsafe { std::slice::from_raw_parts(data as *const u8, size) }
        };
        let loaded = Module::from_bytes(&device, bytes)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(module, "module", handle_of(&MODULES, loaded))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Loads a code object file (`.ptx`, `.cubin`, `.fatbin`; kind detected from the content).
///
/// # Safety
/// `path` is a NUL-terminated string; `module` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_module_load_file(
    device: chevron_device,
    path: *const c_char,
    module: *mut chevron_module,
) -> chevron_status {
    entry("chevron_module_load_file", || {
        let device = lookup(&DEVICES, device)?;
        // SAFETY: forwarded from the caller.
        let path = unsafe { read_str(path, "path")? };
        let loaded = Module::from_file(&device, path)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(module, "module", handle_of(&MODULES, loaded))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Releases a module handle. The code stays loaded while kernels of it are held or running.
#[no_mangle]
pub extern "C" fn chevron_module_release(module: chevron_module) -> chevron_status {
    entry("chevron_module_release", || {
        release(&MODULES, module)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Finds a kernel of `module` by plain name (`saxpy`, when unambiguous), exact symbol name
/// (`_Z5saxpyfPKfPf`) or demangled signature (`saxpy(float, float const*, float*)`).
///
/// # Safety
/// `name` is a NUL-terminated string; `kernel` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_module_get_kernel(
    module: chevron_module,
    name: *const c_char,
    kernel: *mut chevron_kernel,
) -> chevron_status {
    entry("chevron_module_get_kernel", || {
        let module = lookup(&MODULES, module)?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { read_str(name, "name")? };
        let found = module.kernel(name)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(kernel, "kernel", handle_of(&KERNELS, found))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Releases a kernel handle.
#[no_mangle]
pub extern "C" fn chevron_kernel_release(kernel: chevron_kernel) -> chevron_status {
    entry("chevron_kernel_release", || {
        release(&KERNELS, kernel)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores the number of parameters of `kernel` in `*count`; `CHEVRON_ERROR_NOT_FOUND` when
/// the code object does not describe them.
///
/// # Safety
/// `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_kernel_param_count(
    kernel: chevron_kernel,
    count: *mut usize,
) -> chevron_status {
    entry("chevron_kernel_param_count", || {
        let kernel = lookup(&KERNELS, kernel)?;
        let params = kernel.params().ok_or_else(|| {
            CapiError::new(
                chevron_status::CHEVRON_ERROR_NOT_FOUND,
                format!(
                    "the code object of `{}` does not describe its parameters",
                    kernel.display_name()
                ),
            )
        })?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(count, "count", params.len())? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
