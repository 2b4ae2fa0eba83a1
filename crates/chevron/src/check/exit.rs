//! The end of a checked process: leaks reported, a summary printed, and exit status 1 when
//! anything was found, from an `atexit` handler installed when checks are turned on (it runs
//! after `main` returns, before the handlers installed earlier, such as the CUDA runtime's).

use std::sync::Once;

use super::{current, findings, leaks};

static INSTALLED: Once = Once::new();

/// Exit status of a process whose checks found something.
pub const FOUND_EXIT_STATUS: i32 = 1;

/// Installs the exit handler once.
pub(super) fn install() {
    INSTALLED.call_once(|| {
        // SAFETY: `at_exit` is an `extern "C"` function that never unwinds (it catches panics).
        unsafe { libc::atexit(at_exit) };
    });
}

extern "C" fn at_exit() {
    let found = std::panic::catch_unwind(finish).unwrap_or(0);
    if found > 0 {
        // SAFETY: flushes every C stdio stream; `_exit` then ends the process without running
        // the remaining exit handlers (the status cannot be changed any other way from here).
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(FOUND_EXIT_STATUS);
        }
    }
}

/// Reports leaks and prints the summary; returns how many findings there were.
fn finish() -> usize {
    let checks = current();
    if checks.leaks {
        leaks::report();
    }
    let all = findings();
    let mut counts = Vec::new();
    for check in ["memcheck", "racecheck", "initcheck", "synccheck", "leaks"] {
        let n = all.iter().filter(|f| f.check == check).count();
        if n > 0 {
            counts.push(format!("{check}: {n}"));
        }
    }
    if all.is_empty() {
        eprintln!("chevron check ({}): no problems found", checks.names());
    } else {
        eprintln!(
            "chevron check ({}): {} problem(s) found ({})",
            checks.names(),
            all.len(),
            counts.join(", ")
        );
    }
    all.len()
}
