//! Status codes returned by every `chevron_*` function, and how chevron's errors map to them.

use std::ffi::{c_char, c_int, CStr};

/// The outcome of a `chevron_*` call. On anything but `CHEVRON_SUCCESS` (and
/// `CHEVRON_NOT_READY`), `chevron_last_error()` describes the failure.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum chevron_status {
    /// The call succeeded.
    CHEVRON_SUCCESS = 0,
    /// A query found the work not finished yet (not an error).
    CHEVRON_NOT_READY = 1,
    /// A handle is NULL, released, or of another kind.
    CHEVRON_ERROR_INVALID_HANDLE = 2,
    /// An argument is invalid (NULL pointer, out-of-range offset, wrong device, …).
    CHEVRON_ERROR_INVALID_VALUE = 3,
    /// A kernel, symbol, device or file was not found.
    CHEVRON_ERROR_NOT_FOUND = 4,
    /// Launch arguments do not match the kernel's parameters (count or size).
    CHEVRON_ERROR_ARGUMENT = 5,
    /// The launch configuration exceeds a device or kernel limit.
    CHEVRON_ERROR_LAUNCH_CONFIG = 6,
    /// A code object is malformed or unsupported.
    CHEVRON_ERROR_CODE_OBJECT = 7,
    /// A kernel faulted; later work on its stream was cancelled.
    CHEVRON_ERROR_FAULT = 8,
    /// The driver reported an error.
    CHEVRON_ERROR_DRIVER = 9,
    /// No device is available (no backend found, or `CHEVRON_DEVICES` names none present).
    CHEVRON_ERROR_UNAVAILABLE = 10,
    /// A file could not be read.
    CHEVRON_ERROR_IO = 11,
    /// A bug in chevron (a panic caught at the C boundary).
    CHEVRON_ERROR_INTERNAL = 12,
    /// Work did not finish within the deadline of `chevron_token_wait_timeout`.
    CHEVRON_ERROR_TIMEOUT = 13,
}

impl chevron_status {
    /// The status a chevron error maps to.
    pub(crate) fn of(error: &chevron::Error) -> chevron_status {
        use chevron::Error as E;
        match error {
            E::Unavailable { .. } => chevron_status::CHEVRON_ERROR_UNAVAILABLE,
            E::Driver { .. } => chevron_status::CHEVRON_ERROR_DRIVER,
            E::Argument { .. } => chevron_status::CHEVRON_ERROR_ARGUMENT,
            E::LaunchConfig { .. } => chevron_status::CHEVRON_ERROR_LAUNCH_CONFIG,
            E::NotFound { .. } => chevron_status::CHEVRON_ERROR_NOT_FOUND,
            E::CodeObject { .. } => chevron_status::CHEVRON_ERROR_CODE_OBJECT,
            E::Fault { .. } => chevron_status::CHEVRON_ERROR_FAULT,
            E::Io { .. } => chevron_status::CHEVRON_ERROR_IO,
            E::InvalidValue { .. } => chevron_status::CHEVRON_ERROR_INVALID_VALUE,
            E::Timeout { .. } => chevron_status::CHEVRON_ERROR_TIMEOUT,
            // A kind of error this C API names no status for yet; its message says what.
            _ => chevron_status::CHEVRON_ERROR_INVALID_VALUE,
        }
    }

    /// The status's name as a NUL-terminated string.
    fn name(self) -> &'static CStr {
        match self {
            chevron_status::CHEVRON_SUCCESS => c"CHEVRON_SUCCESS",
            chevron_status::CHEVRON_NOT_READY => c"CHEVRON_NOT_READY",
            chevron_status::CHEVRON_ERROR_INVALID_HANDLE => c"CHEVRON_ERROR_INVALID_HANDLE",
            chevron_status::CHEVRON_ERROR_INVALID_VALUE => c"CHEVRON_ERROR_INVALID_VALUE",
            chevron_status::CHEVRON_ERROR_NOT_FOUND => c"CHEVRON_ERROR_NOT_FOUND",
            chevron_status::CHEVRON_ERROR_ARGUMENT => c"CHEVRON_ERROR_ARGUMENT",
            chevron_status::CHEVRON_ERROR_LAUNCH_CONFIG => c"CHEVRON_ERROR_LAUNCH_CONFIG",
            chevron_status::CHEVRON_ERROR_CODE_OBJECT => c"CHEVRON_ERROR_CODE_OBJECT",
            chevron_status::CHEVRON_ERROR_FAULT => c"CHEVRON_ERROR_FAULT",
            chevron_status::CHEVRON_ERROR_DRIVER => c"CHEVRON_ERROR_DRIVER",
            chevron_status::CHEVRON_ERROR_UNAVAILABLE => c"CHEVRON_ERROR_UNAVAILABLE",
            chevron_status::CHEVRON_ERROR_IO => c"CHEVRON_ERROR_IO",
            chevron_status::CHEVRON_ERROR_TIMEOUT => c"CHEVRON_ERROR_TIMEOUT",
            chevron_status::CHEVRON_ERROR_INTERNAL => c"CHEVRON_ERROR_INTERNAL",
        }
    }

    /// The status with numeric value `value`, if there is one.
    fn from_value(value: c_int) -> Option<chevron_status> {
        use chevron_status::*;
        [
            CHEVRON_SUCCESS,
            CHEVRON_NOT_READY,
            CHEVRON_ERROR_INVALID_HANDLE,
            CHEVRON_ERROR_INVALID_VALUE,
            CHEVRON_ERROR_NOT_FOUND,
            CHEVRON_ERROR_ARGUMENT,
            CHEVRON_ERROR_LAUNCH_CONFIG,
            CHEVRON_ERROR_CODE_OBJECT,
            CHEVRON_ERROR_FAULT,
            CHEVRON_ERROR_DRIVER,
            CHEVRON_ERROR_UNAVAILABLE,
            CHEVRON_ERROR_IO,
            CHEVRON_ERROR_INTERNAL,
            CHEVRON_ERROR_TIMEOUT,
        ]
        .into_iter()
        .find(|s| *s as c_int == value)
    }
}

/// The name of a status code (a `chevron_status` value), e.g. `"CHEVRON_ERROR_ARGUMENT"`, or
/// `"unknown status"`. The string is static.
#[no_mangle]
pub extern "C" fn chevron_status_name(status: c_int) -> *const c_char {
    chevron_status::from_value(status)
        .map_or(c"unknown status", chevron_status::name)
        .as_ptr()
}
