//! The sanitizer from C (docs/sanitizer.md): `chevron_check_configure` turns checks on (as
//! `CHEVRON_CHECK` does), `chevron_check_findings` / `chevron_check_get_finding` read what
//! they found as typed records, `chevron_check_clear` forgets them (keeping them out of the
//! exit summary and status), so that a C test harness asserts on findings.

use std::ffi::{c_char, CString};
use std::sync::Mutex;

use chevron::check::{CheckConfig, Finding};

use crate::api::read_str;
use crate::error::{entry, CapiError};
use crate::status::chevron_status;

/// One side of a race, or where a finding happened.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chevron_check_access {
    /// 1 when the access wrote, 0 when it read (racecheck; 0 otherwise).
    pub write: u32,
    /// `%ctaid` of the thread (zeros outside a kernel).
    pub block: [u32; 3],
    /// `%tid` of the thread (zeros outside a kernel).
    pub thread: [u32; 3],
    /// Source file name (NUL-terminated), or NULL without line information.
    pub file: *const c_char,
    /// Source line (0 without line information).
    pub line: u32,
    /// Source column (0 when unknown).
    pub column: u32,
}

/// What a check found. Its strings stay valid until the next `chevron_check_findings` or
/// `chevron_check_clear`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chevron_check_finding {
    /// `memcheck`, `racecheck`, `initcheck`, `synccheck` or `leaks`.
    pub check: *const c_char,
    /// `out-of-bounds access`, `shared-memory race`, `uninitialized read`, `leak`, …
    pub kind: *const c_char,
    /// The demangled kernel, or NULL for findings outside a kernel.
    pub kernel: *const c_char,
    /// 1 when `access` names a thread of a kernel.
    pub in_kernel: u32,
    /// The finding's own access: its thread and source position.
    pub access: chevron_check_access,
    /// 1 for races: `other` is the earlier access of the pair.
    pub has_other: u32,
    /// See `has_other`.
    pub other: chevron_check_access,
    /// The address involved (0 when none; for shared-memory races the offset in the block's).
    pub address: u64,
    /// How many times it happened (racecheck groups conflicts by their pair of instructions).
    pub count: u64,
    /// The whole report, as printed.
    pub message: *const c_char,
}

/// The strings of a finding, owned while C holds pointers into them.
struct Owned {
    check: CString,
    kind: CString,
    kernel: Option<CString>,
    file: Option<CString>,
    other_file: Option<CString>,
    message: CString,
    finding: Finding,
}

/// The findings of the last `chevron_check_findings`.
static SNAPSHOT: Mutex<Vec<Owned>> = Mutex::new(Vec::new());

fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

fn owned(finding: Finding) -> Owned {
    Owned {
        check: c_string(finding.check),
        kind: c_string(&finding.kind),
        kernel: finding.kernel.as_deref().map(c_string),
        file: finding.source.as_ref().map(|s| c_string(s.file_name())),
        other_file: finding
            .other
            .as_ref()
            .and_then(|o| o.source_position())
            .map(|s| c_string(s.file_name())),
        message: c_string(&finding.message),
        finding,
    }
}

fn pointer(text: &Option<CString>) -> *const c_char {
    text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr())
}

fn record(owned: &Owned) -> chevron_check_finding {
    let f = &owned.finding;
    let position =
        |s: Option<&chevron::check::SourcePosition>| s.map_or((0, 0), |s| (s.line, s.column));
    let (line, column) = position(f.source.as_ref());
    let other = f.other.as_ref();
    let (other_line, other_column) = position(other.and_then(|o| o.source_position()));
    chevron_check_finding {
        check: owned.check.as_ptr(),
        kind: owned.kind.as_ptr(),
        kernel: pointer(&owned.kernel),
        in_kernel: u32::from(f.block.is_some()),
        access: chevron_check_access {
            write: u32::from(f.write == Some(true)),
            block: f.block.unwrap_or_default(),
            thread: f.thread.unwrap_or_default(),
            file: pointer(&owned.file),
            line,
            column,
        },
        has_other: u32::from(other.is_some()),
        other: chevron_check_access {
            write: u32::from(other.is_some_and(|o| o.write)),
            block: other.map(|o| o.block).unwrap_or_default(),
            thread: other.map(|o| o.thread).unwrap_or_default(),
            file: pointer(&owned.other_file),
            line: other_line,
            column: other_column,
        },
        address: f.address.unwrap_or(0),
        count: f.count,
        message: owned.message.as_ptr(),
    }
}

/// Turns on the checks of `list` (comma-separated `memcheck`, `racecheck`, `initcheck`,
/// `synccheck`, `leaks`, `all`) for this process, as `CHEVRON_CHECK` does; call it before the
/// first device is used. `CHEVRON_ERROR_INVALID_VALUE` for a name chevron does not know, or
/// when the checks were already fixed differently.
///
/// # Safety
/// `list` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn chevron_check_configure(list: *const c_char) -> chevron_status {
    entry("chevron_check_configure", || {
        // SAFETY: forwarded from the caller.
        let list = unsafe { read_str(list, "list")? };
        chevron::check::configure(CheckConfig::parse(list)?)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Takes a snapshot of the findings so far and writes how many there are to `count`; read
/// them with `chevron_check_get_finding`.
///
/// # Safety
/// `count` is NULL or points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn chevron_check_findings(count: *mut usize) -> chevron_status {
    entry("chevron_check_findings", || {
        if count.is_null() {
            return Err(CapiError::invalid("`count` is NULL"));
        }
        let mut snapshot = SNAPSHOT.lock().unwrap_or_else(|e| e.into_inner());
        *snapshot = chevron::check::findings().into_iter().map(owned).collect();
        // SAFETY: checked non-NULL; the caller promises it is writable.
        unsafe { count.write(snapshot.len()) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Writes finding `index` of the last `chevron_check_findings` snapshot to `finding`.
/// `CHEVRON_ERROR_INVALID_VALUE` when `index` is not below the snapshot's count.
///
/// # Safety
/// `finding` is NULL or points to writable memory for one `chevron_check_finding`.
#[no_mangle]
pub unsafe extern "C" fn chevron_check_get_finding(
    index: usize,
    finding: *mut chevron_check_finding,
) -> chevron_status {
    entry("chevron_check_get_finding", || {
        if finding.is_null() {
            return Err(CapiError::invalid("`finding` is NULL"));
        }
        let snapshot = SNAPSHOT.lock().unwrap_or_else(|e| e.into_inner());
        let owned = snapshot.get(index).ok_or_else(|| {
            CapiError::invalid(format!(
                "finding {index} of {} (call chevron_check_findings first)",
                snapshot.len()
            ))
        })?;
        // SAFETY: checked non-NULL; the caller promises it is writable. The strings it points
        // to live in SNAPSHOT until the next snapshot or clear.
        unsafe { finding.write(record(owned)) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Forgets every finding so far (and the snapshot): they no longer count in the summary and
/// exit status printed at exit.
#[no_mangle]
pub extern "C" fn chevron_check_clear() -> chevron_status {
    entry("chevron_check_clear", || {
        chevron::check::take_findings();
        SNAPSHOT.lock().unwrap_or_else(|e| e.into_inner()).clear();
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
