//! The small tables: tools callback hooks (`{a094798c-…}`), and context checks
//! (`{263e8860-…}`).
//!
//! TOOLS_RUNTIME_CALLBACK_HOOKS slots 2 and 6 each hand the runtime a zeroed buffer and its
//! size (`(void** buffer, size_t* size)`), where tools (CUPTI) would switch callbacks on; with
//! every word zero no callback is enabled. ZLUDA reports 1024 and 14; the buffers here hold 16
//! bytes per unit of that size, so they stay in bounds whatever unit the runtime reads.
//! The context checks' slot 2 (`(CUcontext, u32*, void**) -> CUresult`) reports flag 0 and
//! slot 3 (`() -> u32`) returns 0, as NVIDIA's driver does for an ordinary context.

use std::cell::UnsafeCell;
use std::ffi::c_void;

use crate::result::{CUresult, SUCCESS};

/// A zeroed buffer the runtime may write.
struct Buffer<const BYTES: usize>(UnsafeCell<[u8; BYTES]>);

// SAFETY: only the runtime writes the buffers, through the pointer it is given.
unsafe impl<const BYTES: usize> Sync for Buffer<BYTES> {}

static CALLBACKS: Buffer<{ 1024 * 16 }> = Buffer(UnsafeCell::new([0; 1024 * 16]));
static FLAGS: Buffer<{ 14 * 16 }> = Buffer(UnsafeCell::new([0; 14 * 16]));

/// Writes `buffer`'s address and `units` through the runtime's out-pointers (NULL ones are
/// skipped).
fn hand_out<const BYTES: usize>(
    buffer: &'static Buffer<BYTES>,
    units: usize,
    at: *mut *mut c_void,
    size: *mut usize,
) {
    if !at.is_null() {
        // SAFETY: non-NULL; writable by the table's contract.
        unsafe { at.write(buffer.0.get().cast()) };
    }
    if !size.is_null() {
        // SAFETY: as above.
        unsafe { size.write(units) };
    }
}

/// Hooks slot 2.
pub extern "C" fn callback_buffer(at: *mut *mut c_void, size: *mut usize) {
    hand_out(&CALLBACKS, 1024, at, size);
}

/// Hooks slot 6.
pub extern "C" fn callback_flags(at: *mut *mut c_void, size: *mut usize) {
    hand_out(&FLAGS, 14, at, size);
}

/// Context checks slot 2.
pub(crate) extern "C" fn context_check(
    _: *mut c_void,
    flags: *mut u32,
    _: *mut *const c_void,
) -> CUresult {
    if !flags.is_null() {
        // SAFETY: non-NULL; writable by the table's contract.
        unsafe { flags.write(0) };
    }
    SUCCESS
}

/// Context checks slot 3.
pub extern "C" fn no_flags() -> u32 {
    0
}
