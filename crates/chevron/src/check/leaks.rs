//! Leak checking: the allocations the CUDA runtime made and not freed, with the host call that
//! made each (the API function and its caller, from a backtrace taken at allocation and read
//! only if the allocation leaks).

use std::backtrace::Backtrace;
use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{current, record, Finding};

struct Site {
    bytes: u64,
    call: &'static str,
    backtrace: Backtrace,
}

static LIVE: Mutex<BTreeMap<u64, Site>> = Mutex::new(BTreeMap::new());

/// Remembers an allocation of `bytes` at `address` made by `call` (e.g. `cudaMalloc`), when leak
/// checking is on.
pub fn track_allocation(address: u64, bytes: u64, call: &'static str) {
    if !current().leaks {
        return;
    }
    let site = Site {
        bytes,
        call,
        backtrace: Backtrace::force_capture(),
    };
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(address, site);
}

/// Forgets an allocation that was freed.
pub fn forget_allocation(address: u64) {
    if !current().leaks {
        return;
    }
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&address);
}

/// Reports every allocation still live as a finding; returns how many.
pub(super) fn report() -> usize {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for (address, site) in &live {
        let caller = caller_of(&site.backtrace.to_string(), site.call);
        record(Finding {
            check: "leaks",
            kind: "leak".into(),
            kernel: None,
            block: None,
            thread: None,
            address: Some(*address),
            source: None,
            write: None,
            other: None,
            count: 1,
            message: format!(
                "{} bytes at {address:#x} allocated by {}{caller} were not freed",
                site.bytes, site.call
            ),
        });
    }
    live.len()
}

/// ` called from main (leak.cu:10)`: the frame after `call`'s in a printed backtrace (its
/// function, and its file and line where the program has debug information), or nothing.
pub(super) fn caller_of(backtrace: &str, call: &str) -> String {
    let mut lines = backtrace.lines().map(str::trim);
    let frame_name = |line: &str| -> Option<String> {
        let (number, name) = line.split_once(": ")?;
        number.parse::<u32>().ok()?;
        Some(name.to_string())
    };
    while let Some(line) = lines.next() {
        if frame_name(line).as_deref() != Some(call) {
            continue;
        }
        // The next frame outside the CUDA API (whose header wraps `cudaMalloc` in inline
        // templates) is the caller; its location, if any, follows on an `at` line.
        for line in lines.by_ref() {
            let Some(name) = frame_name(line) else {
                continue;
            };
            let name = chevron_ptx::symbols::demangle(&name).unwrap_or(name);
            if name.starts_with("cuda") {
                continue;
            }
            let location = lines
                .next()
                .and_then(|l| l.strip_prefix("at "))
                .map(|at| {
                    let file_line = at.rsplit_once(':').map(|(fl, _)| fl).unwrap_or(at);
                    let name = file_line.rsplit('/').next().unwrap_or(file_line);
                    format!(" ({name})")
                })
                .unwrap_or_default();
            return format!(" called from {name}{location}");
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::caller_of;

    #[test]
    fn the_caller_is_the_frame_after_the_call() {
        let text = "   0: std::backtrace::Backtrace::create\n   5: cudaMalloc\n             at \
                    /src/memory.rs:62:5\n   6: main\n             at /home/u/leak.cu:10:5\n   7: \
                    __libc_start_main\n";
        assert_eq!(
            caller_of(text, "cudaMalloc"),
            " called from main (leak.cu:10)"
        );
        let bare = "   5: cudaMalloc\n   6: _Z10cudaMallocIfE9cudaErrorPPT_m\n   7: main\n";
        assert_eq!(caller_of(bare, "cudaMalloc"), " called from main");
        assert_eq!(caller_of(bare, "cudaMallocAsync"), "");
    }
}
