//! The error side of the C API: [`CapiError`] (a status and a message), the thread-local last
//! error behind `chevron_last_error()`, and [`entry`], which every `chevron_*` function runs its
//! body in (through `chevron::ffi::entry`, so that no panic ever crosses the ABI).
//!
//! The thread-local is read and written with `try_with`: it may already be destroyed when a
//! call arrives during thread or process exit, and that must not panic.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use chevron::ffi::EntryError;

use crate::status::chevron_status;

/// A failed call: the status to return, the message for `chevron_last_error()` and, for a
/// kernel fault, its class for `chevron_last_fault_kind()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CapiError {
    pub(crate) status: chevron_status,
    pub(crate) message: String,
    pub(crate) fault: Option<chevron::FaultKind>,
}

impl CapiError {
    pub(crate) fn new(status: chevron_status, message: impl Into<String>) -> CapiError {
        CapiError {
            status,
            message: message.into(),
            fault: None,
        }
    }

    /// An invalid argument.
    pub(crate) fn invalid(message: impl Into<String>) -> CapiError {
        CapiError::new(chevron_status::CHEVRON_ERROR_INVALID_VALUE, message)
    }
}

impl From<chevron::Error> for CapiError {
    fn from(error: chevron::Error) -> CapiError {
        let fault = match &error {
            chevron::Error::Fault { kind, .. } => Some(*kind),
            _ => None,
        };
        CapiError {
            fault,
            ..CapiError::new(chevron_status::of(&error), error.to_string())
        }
    }
}

/// Result of the body of a C API function.
pub(crate) type CapiResult<T> = Result<T, CapiError>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Stores `message` as this thread's last error (interior NULs become spaces).
pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // During thread exit the slot may be gone; the message is then dropped.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = text);
}

/// A failure of a `chevron_*` function: its message, prefixed with the function's name, becomes
/// the thread's last error; a panic is `CHEVRON_ERROR_INTERNAL`.
impl EntryError for CapiError {
    type Code = chevron_status;

    fn internal(panic: Option<&str>) -> CapiError {
        let what = panic.unwrap_or("unknown panic");
        CapiError::new(
            chevron_status::CHEVRON_ERROR_INTERNAL,
            format!("internal error in chevron: {what}"),
        )
    }

    fn record(self, call: &str) -> chevron_status {
        set_last_error(&format!("{call}: {}", self.message));
        crate::fault::set_last_fault(self.fault);
        self.status
    }
}

/// Runs the body of C API function `call`: returns its status, records the message of a
/// failure (prefixed with `call`) as the thread's last error, and turns a panic into
/// `CHEVRON_ERROR_INTERNAL`.
#[inline]
pub(crate) fn entry(
    call: &str,
    body: impl FnOnce() -> CapiResult<chevron_status>,
) -> chevron_status {
    chevron::ffi::entry(call, body).unwrap_or_else(|status| status)
}

/// The message of the last failed `chevron_*` call on this thread (empty if none). The string
/// stays valid until the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn chevron_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last() -> String {
        // SAFETY: chevron_last_error returns a valid NUL-terminated string owned by this thread.
        unsafe { CStr::from_ptr(chevron_last_error()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn failures_set_the_last_error_and_panics_are_contained() {
        let status = entry("chevron_demo", || Err(CapiError::invalid("`n` is NULL")));
        assert_eq!(status, chevron_status::CHEVRON_ERROR_INVALID_VALUE);
        assert_eq!(last(), "chevron_demo: `n` is NULL");
        let status = entry("chevron_boom", || panic!("broken invariant"));
        assert_eq!(status, chevron_status::CHEVRON_ERROR_INTERNAL);
        assert!(last().contains("chevron_boom") && last().contains("broken invariant"));
    }
}
