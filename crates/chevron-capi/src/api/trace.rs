//! The host trace from C: `chevron_trace_start` / `chevron_trace_stop` (Chrome trace-event
//! JSON; `CHEVRON_TRACE=FILE` does the same for the whole run without code).

use std::ffi::c_char;

use crate::api::read_str;
use crate::error::entry;
use crate::status::chevron_status;

/// Starts recording every chevron call into the file `path`, written as the trace records;
/// `chevron_trace_stop` completes it. `CHEVRON_ERROR_INVALID_VALUE` when a trace is already
/// recording (the first goes on: stop it first) or the file cannot be created.
///
/// # Safety
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn chevron_trace_start(path: *const c_char) -> chevron_status {
    entry("chevron_trace_start", || {
        // SAFETY: forwarded from the caller.
        let path = unsafe { read_str(path, "path")? };
        chevron::trace::start(path)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stops recording and writes the trace started by `chevron_trace_start` (an error when none
/// is recording, or when the file cannot be written).
#[no_mangle]
pub extern "C" fn chevron_trace_stop() -> chevron_status {
    entry("chevron_trace_stop", || {
        chevron::trace::stop()?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
