//! Driver return codes as chevron errors: the call, the driver's error name and text, the
//! device, and what chevron was doing.

use std::ffi::{c_char, CStr};

use super::sys::{self, CUresult, Driver};
use crate::error::{Error, Result};

/// The driver's name and text for `code`, e.g. (`CUDA_ERROR_INVALID_VALUE`, `invalid argument`).
pub(crate) fn describe(driver: &Driver, code: CUresult) -> (String, String) {
    let mut name: *const c_char = std::ptr::null();
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: both calls only write a pointer to a static string (or leave it null on an
    // unknown code).
    let (name_rc, text_rc) = unsafe {
        (
            (driver.cuGetErrorName)(code, &mut name),
            (driver.cuGetErrorString)(code, &mut text),
        )
    };
    let read = |rc: CUresult, ptr: *const c_char, fallback: String| {
        if rc == sys::CUDA_SUCCESS && !ptr.is_null() {
            // SAFETY: the driver returned a NUL-terminated static string.
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned()
        } else {
            fallback
        }
    };
    let (fallback_name, fallback_text) = match code {
        // The driver cannot describe its own errors once it has shut down (at process exit).
        4 => (
            "CUDA_ERROR_DEINITIALIZED".to_string(),
            "the driver is shutting down",
        ),
        _ => (format!("CUDA error {code}"), "unknown error"),
    };
    (
        read(name_rc, name, fallback_name),
        read(text_rc, text, fallback_text.to_string()),
    )
}

/// A driver error for a failed `call` on `device`.
pub(crate) fn driver_error(
    driver: &Driver,
    call: &'static str,
    code: CUresult,
    device: &str,
    context: String,
) -> Error {
    let (name, text) = describe(driver, code);
    Error::Driver {
        call,
        code,
        name,
        text,
        device: device.to_string(),
        context,
    }
}

/// `Ok` for `CUDA_SUCCESS`, else the driver error (no context).
pub(crate) fn check(
    driver: &Driver,
    call: &'static str,
    code: CUresult,
    device: &str,
) -> Result<()> {
    if code == sys::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(driver, call, code, device, String::new()))
    }
}

/// Whether `code` is a kernel fault that leaves the context unusable.
pub(crate) fn is_fault(code: CUresult) -> bool {
    sys::STICKY_FAULTS.contains(&code)
}
