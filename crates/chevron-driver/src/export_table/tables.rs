//! The tables chevron serves, as the runtime reads them: arrays of pointer-sized words, the
//! first of most being the table's size in bytes. Slots chevron does not implement hold
//! [`unserved`] (one line and `CUDA_ERROR_NOT_SUPPORTED`), never NULL.

use std::ffi::c_void;

use super::unserved::unserved;
use super::{context_storage, cudart_interface, integrity, known, tools, Uuid};

/// A table: `N` words.
#[repr(transparent)]
pub struct Table<const N: usize>(pub [*const c_void; N]);

// SAFETY: the words are addresses of functions and constants, never written.
unsafe impl<const N: usize> Sync for Table<N> {}

impl<const N: usize> Table<N> {
    /// The address the runtime receives.
    pub fn address(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

/// The first word of a table of `n` words: its size in bytes.
const fn size(n: usize) -> *const c_void {
    (n * std::mem::size_of::<usize>()) as *const c_void
}

const CUDART: usize = 1;
const HOOKS: usize = 2;
const TOOLS_TLS: usize = 3;
const STORAGE: usize = 4;
const INTEGRITY: usize = 5;
const CHECKS: usize = 6;

/// CUDART_INTERFACE.
pub static CUDART_INTERFACE: Table<10> = Table([
    size(10),
    cudart_interface::module_from_fatbin_wrapper as *const c_void,
    cudart_interface::primary_context as *const c_void,
    unserved::<CUDART, 3> as *const c_void,
    unserved::<CUDART, 4> as *const c_void,
    unserved::<CUDART, 5> as *const c_void,
    cudart_interface::module_from_fatbin_wrapper_ext as *const c_void,
    cudart_interface::no_op as *const c_void,
    cudart_interface::module_from_fatbin as *const c_void,
    unserved::<CUDART, 9> as *const c_void,
]);

/// TOOLS_RUNTIME_CALLBACK_HOOKS.
pub static RUNTIME_CALLBACK_HOOKS: Table<7> = Table([
    size(7),
    unserved::<HOOKS, 1> as *const c_void,
    tools::callback_buffer as *const c_void,
    unserved::<HOOKS, 3> as *const c_void,
    unserved::<HOOKS, 4> as *const c_void,
    unserved::<HOOKS, 5> as *const c_void,
    tools::callback_flags as *const c_void,
]);

/// TOOLS_TLS: only its size is read.
pub static TOOLS_THREAD_STORAGE: Table<4> = Table([
    size(4),
    unserved::<TOOLS_TLS, 1> as *const c_void,
    unserved::<TOOLS_TLS, 2> as *const c_void,
    unserved::<TOOLS_TLS, 3> as *const c_void,
]);

/// CONTEXT_LOCAL_STORAGE_INTERFACE (no size word).
pub static CONTEXT_LOCAL_STORAGE: Table<4> = Table([
    context_storage::put as *const c_void,
    context_storage::remove as *const c_void,
    context_storage::get as *const c_void,
    unserved::<STORAGE, 3> as *const c_void,
]);

/// INTEGRITY_CHECK.
pub static INTEGRITY_CHECK: Table<3> = Table([
    size(3),
    integrity::integrity_check as *const c_void,
    unserved::<INTEGRITY, 2> as *const c_void,
]);

/// `{263e8860-…}`: context checks.
pub static CONTEXT_CHECKS: Table<4> = Table([
    size(4),
    unserved::<CHECKS, 1> as *const c_void,
    tools::context_check as *const c_void,
    tools::no_flags as *const c_void,
]);

/// The table served for `uuid`, if any.
pub fn served(uuid: &Uuid) -> Option<*const c_void> {
    let index = known::TABLES
        .iter()
        .position(|(bytes, _)| *bytes == uuid.0)?;
    let table = match index {
        CUDART => CUDART_INTERFACE.address(),
        HOOKS => RUNTIME_CALLBACK_HOOKS.address(),
        TOOLS_TLS => TOOLS_THREAD_STORAGE.address(),
        STORAGE => CONTEXT_LOCAL_STORAGE.address(),
        INTEGRITY => INTEGRITY_CHECK.address(),
        CHECKS => CONTEXT_CHECKS.address(),
        _ => return None,
    };
    Some(table as *const c_void)
}
