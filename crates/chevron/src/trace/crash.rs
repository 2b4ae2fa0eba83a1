//! The trace file's tail written when the program dies of a signal (`abort`, a segmentation
//! fault): the handler only writes a constant to a file descriptor, which is async-signal-safe,
//! then hands the signal to the disposition it replaced. Events still in threads' buffers (the
//! last batch of each thread) are lost; what is in the file stays a valid trace.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Once;

use super::chrome::TAIL;

/// The trace file's descriptor while the trace records, else -1.
static FD: AtomicI32 = AtomicI32::new(-1);
/// Whether a batch is being written (the file then ends mid-batch: no tail is added).
static WRITING: AtomicBool = AtomicBool::new(false);

const SIGNALS: [libc::c_int; 5] = [
    libc::SIGABRT,
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
];

/// The dispositions the handler replaced, by index in [`SIGNALS`].
static mut PREVIOUS: [Option<libc::sigaction>; 5] = [None; 5];

/// Makes a crash write the tail to `fd` (the handlers are installed once per process).
pub(super) fn arm(fd: i32) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install);
    FD.store(fd, Ordering::SeqCst);
}

/// The trace is closing normally: a crash from now on writes nothing.
pub(super) fn disarm() {
    FD.store(-1, Ordering::SeqCst);
}

/// Notes that a batch is (or is no longer) being written.
pub(super) fn writing(busy: bool) {
    WRITING.store(busy, Ordering::SeqCst);
}

fn install() {
    for (i, &signal) in SIGNALS.iter().enumerate() {
        // SAFETY: a zeroed `sigaction` is a valid value to fill in; `on_crash` has the
        // three-argument form SA_SIGINFO asks for; the previous disposition is written to a
        // valid out-pointer and stored before any signal can read it (this runs once, before
        // FD is set, and the handler reads PREVIOUS only when FD is set).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_crash as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, &action, &mut previous) == 0 {
                (*std::ptr::addr_of_mut!(PREVIOUS))[i] = Some(previous);
            }
        }
    }
}

extern "C" fn on_crash(signal: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
    let fd = FD.swap(-1, Ordering::SeqCst);
    if fd >= 0 && !WRITING.load(Ordering::SeqCst) {
        // SAFETY: write(2) is async-signal-safe; the bytes are a constant.
        unsafe { libc::write(fd, TAIL.as_ptr().cast(), TAIL.len()) };
    }
    let index = SIGNALS.iter().position(|&s| s == signal);
    // SAFETY: PREVIOUS was written once before the handler was installed and is only read
    // here; sigaction and raise are async-signal-safe. The signal is blocked while this
    // handler runs, so the raised one is delivered, to the restored disposition, once it
    // returns (a fault that recurs on return meets the same disposition).
    unsafe {
        let previous = index.and_then(|i| (*std::ptr::addr_of!(PREVIOUS))[i]);
        match previous {
            Some(previous) => libc::sigaction(signal, &previous, std::ptr::null_mut()),
            None => {
                libc::signal(signal, libc::SIG_DFL);
                0
            }
        };
        libc::raise(signal);
    }
}
