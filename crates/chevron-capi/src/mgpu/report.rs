//! Error reports of the `mgpu*` functions: one line on stderr per failure, as upstream prints
//! driver errors, or an abort under `CHEVRON_ABORT_ON_ERROR=1`; [`Reported`] is how a failure
//! of an `mgpu*` function's body is recorded by `chevron::ffi::entry`.
//!
//! The line is written with one `write(2)` on file descriptor 2, without Rust's stderr lock or
//! any thread-local, so that reporting works inside global constructors and destructors, during
//! process exit.

use std::fs::File;
use std::io::Write;
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::OnceLock;

use chevron::ffi::EntryError;

use crate::error::CapiError;

/// A failure of an `mgpu*` function's body: reported on stderr, since the ABI has no error
/// channel (the function returns its fallback value).
pub(crate) struct Reported(pub(crate) CapiError);

impl EntryError for Reported {
    type Code = ();

    /// The C API's internal error (`internal error in chevron: …`).
    fn internal(panic: Option<&str>) -> Reported {
        Reported(CapiError::internal(panic))
    }

    fn record(self, call: &str) {
        report(call, &self.0.message);
    }
}

/// Whether errors abort the process (`CHEVRON_ABORT_ON_ERROR=1`).
fn abort_on_error() -> bool {
    static ABORT: OnceLock<bool> = OnceLock::new();
    *ABORT.get_or_init(|| {
        std::env::var("CHEVRON_ABORT_ON_ERROR")
            .is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "no"))
    })
}

/// Reports a failure of `call` on stderr; aborts when `CHEVRON_ABORT_ON_ERROR=1`.
pub(crate) fn report(call: &str, message: &str) {
    let line = format!("chevron: {call}: {message}\n");
    // SAFETY: file descriptor 2 is the process's stderr; ManuallyDrop keeps it from being
    // closed when the File goes out of scope.
    let mut stderr = ManuallyDrop::new(unsafe { File::from_raw_fd(2) });
    // Nothing can be done if stderr is closed or full.
    let _ = stderr.write_all(line.as_bytes());
    if abort_on_error() {
        let _ = stderr.write_all(b"chevron: aborting (CHEVRON_ABORT_ON_ERROR is set)\n");
        std::process::abort();
    }
}
