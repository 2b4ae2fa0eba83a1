//! Incremental CUDA C++ (`chevron_jit_*`): a JIT session per device; snippets compiled one at a
//! time with NVRTC see earlier snippets' declarations; kernels come out as ordinary
//! `chevron_kernel` handles. Without NVRTC every call fails with `CHEVRON_ERROR_UNAVAILABLE`
//! and says how to install it.

use std::ffi::c_char;
use std::sync::{Arc, Mutex, MutexGuard};

use chevron::jit::Session;

use super::{
    chevron_device, chevron_kernel, handle_of, lookup, read_str, release, write_out, DEVICES,
    KERNELS,
};
use crate::error::{entry, CapiError, CapiResult};
use crate::handles::{Kind, Registry};
use crate::status::chevron_status;

/// The opaque object behind [`chevron_jit_session`].
#[allow(non_camel_case_types)]
pub struct chevron_jit_session_s {
    _private: [u8; 0],
}
/// An incremental CUDA C++ session on one device. Release with `chevron_jit_session_release`
/// once its kernels are no longer launched (it owns the globals they use).
#[allow(non_camel_case_types)]
pub type chevron_jit_session = *mut chevron_jit_session_s;

static SESSIONS: Registry<Arc<Mutex<Session>>> = Registry::new(Kind::JitSession);

fn locked(session: &Arc<Mutex<Session>>) -> MutexGuard<'_, Session> {
    // A panic while holding the lock is caught at the boundary; the session stays usable.
    session
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn session_of(session: chevron_jit_session) -> CapiResult<Arc<Mutex<Session>>> {
    lookup(&SESSIONS, session)
}

/// Creates a JIT session on `device` (disk cache as `CHEVRON_CACHE` says).
///
/// # Safety
/// `session` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_jit_session_create(
    device: chevron_device,
    session: *mut chevron_jit_session,
) -> chevron_status {
    entry("chevron_jit_session_create", || {
        let device = lookup(&DEVICES, device)?;
        let created = Arc::new(Mutex::new(Session::new(&device)?));
        // SAFETY: forwarded from the caller.
        unsafe { write_out(session, "session", handle_of(&SESSIONS, created))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Releases a JIT session handle.
#[no_mangle]
pub extern "C" fn chevron_jit_session_release(session: chevron_jit_session) -> chevron_status {
    entry("chevron_jit_session_release", || {
        release(&SESSIONS, session)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Compiles one snippet of CUDA C++. On a compile error (`CHEVRON_ERROR_CODE_OBJECT`),
/// `chevron_last_error()` holds NVRTC's diagnostics with the snippet's line numbers, and the
/// session is unchanged. `snippet`, when not NULL, receives the snippet's number (1, 2, …).
///
/// # Safety
/// `source` is a NUL-terminated string; `snippet` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_jit_add(
    session: chevron_jit_session,
    source: *const c_char,
    snippet: *mut u64,
) -> chevron_status {
    entry("chevron_jit_add", || {
        let session = session_of(session)?;
        // SAFETY: forwarded from the caller.
        let source = unsafe { read_str(source, "source")? };
        let added = locked(&session).add(source)?;
        if !snippet.is_null() {
            // SAFETY: non-null and writable by the caller's contract.
            unsafe { snippet.write(added.snippet) };
        }
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Finds the newest definition of a kernel (plain name, exact name, signature or template
/// instance), linked with the newest definition of everything it calls. Release the handle
/// with `chevron_kernel_release`; it keeps the code it was linked with.
///
/// # Safety
/// `name` is a NUL-terminated string; `kernel` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_jit_get_kernel(
    session: chevron_jit_session,
    name: *const c_char,
    kernel: *mut chevron_kernel,
) -> chevron_status {
    entry("chevron_jit_get_kernel", || {
        let session = session_of(session)?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { read_str(name, "name")? };
        let found = locked(&session).kernel(name)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(kernel, "kernel", handle_of(&KERNELS, found))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// The device address and size of a session global (exact or demangled name); the address
/// stays the same for the life of the session. `size` may be NULL.
///
/// # Safety
/// `name` is a NUL-terminated string; `address` is valid for a write; `size` is NULL or valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_jit_get_global(
    session: chevron_jit_session,
    name: *const c_char,
    address: *mut u64,
    size: *mut usize,
) -> chevron_status {
    entry("chevron_jit_get_global", || {
        let session = session_of(session)?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { read_str(name, "name")? };
        let global = locked(&session).global(name)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(address, "address", global.ptr)? };
        if !size.is_null() {
            let bytes = usize::try_from(global.size)
                .map_err(|_| CapiError::invalid("the global's size does not fit size_t"))?;
            // SAFETY: non-null and writable by the caller's contract.
            unsafe { size.write(bytes) };
        }
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}
