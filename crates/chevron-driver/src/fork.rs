//! A process forked after the driver API was initialised: CUDA cannot be used in the child, and
//! every driver call there returns `CUDA_ERROR_NOT_INITIALIZED`, as NVIDIA's driver does (Numba
//! recognises a fork by that code and says so). The child is marked by a `pthread_atfork`
//! handler that `cuInit` installs; the check on every call is one relaxed load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

extern "C" {
    fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> std::ffi::c_int;
}

static FORKED_CHILD: AtomicBool = AtomicBool::new(false);

extern "C" fn mark_child() {
    FORKED_CHILD.store(true, Ordering::Relaxed);
}

/// Marks children forked from now on (once per process; called by `cuInit`).
pub fn watch() {
    static WATCHING: Once = Once::new();
    WATCHING.call_once(|| {
        // SAFETY: registers a handler that only stores to an atomic (async-signal-safe, as a
        // fork handler in a multithreaded process must be).
        unsafe { pthread_atfork(None, None, Some(mark_child)) };
    });
}

/// Whether this process is a child forked after `cuInit`.
#[inline]
pub fn in_forked_child() -> bool {
    FORKED_CHILD.load(Ordering::Relaxed)
}
