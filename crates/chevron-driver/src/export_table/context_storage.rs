//! `{c693336e-1121-df11-a8c3-68f355d89593}` (CONTEXT_LOCAL_STORAGE_INTERFACE): the runtime
//! keeps its per-context state (its module and function tables) in the driver, by key.
//!
//! | slot | signature |
//! |---|---|
//! | 0 | `put(CUcontext, key, value, destructor) -> CUresult` |
//! | 1 | `remove(CUcontext, key) -> CUresult` |
//! | 2 | `get(void** value, CUcontext, key) -> CUresult`: `CUDA_ERROR_INVALID_HANDLE` when absent |
//!
//! A NULL context means the calling thread's current one; with none current the call fails
//! with `CUDA_ERROR_INVALID_CONTEXT`, as the runtime expects on a thread it has not yet bound
//! (it then makes the primary context current).
//! Values are kept for the process's life: chevron's primary contexts are never destroyed, so
//! the destructor callbacks are not called.

use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use cudart::state::lock;

use crate::result::{CUresult, INVALID_CONTEXT, INVALID_HANDLE, SUCCESS};

/// (context, key) → value.
static STORAGE: Mutex<Option<HashMap<(usize, usize), usize>>> = Mutex::new(None);
/// Values put or removed so far: a thread's last value got stays valid while this has not
/// moved.
static CHANGES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The (context, key, value) this thread got last, with [`CHANGES`] then: the runtime asks
    /// for the same value at every launch.
    static LAST_GOT: Cell<Option<(usize, usize, usize, u64)>> = const { Cell::new(None) };
}

/// The context a call names: `context`, or the current one for NULL (none: `None`).
fn context_of(context: *mut c_void) -> Option<usize> {
    if !context.is_null() {
        return Some(context as usize);
    }
    let current = crate::context::current_handle().ok()?;
    (!current.is_null()).then_some(current as usize)
}

/// Slot 0.
pub extern "C" fn put(
    context: *mut c_void,
    key: *mut c_void,
    value: *mut c_void,
    _destructor: *const c_void,
) -> CUresult {
    let Some(context) = context_of(context) else {
        return INVALID_CONTEXT;
    };
    lock(&STORAGE)
        .get_or_insert_with(HashMap::new)
        .insert((context, key as usize), value as usize);
    CHANGES.fetch_add(1, Ordering::AcqRel);
    SUCCESS
}

/// Slot 1.
pub extern "C" fn remove(context: *mut c_void, key: *mut c_void) -> CUresult {
    let Some(context) = context_of(context) else {
        return INVALID_CONTEXT;
    };
    if let Some(storage) = lock(&STORAGE).as_mut() {
        storage.remove(&(context, key as usize));
    }
    CHANGES.fetch_add(1, Ordering::AcqRel);
    SUCCESS
}

/// Slot 2.
pub(crate) extern "C" fn get(
    value: *mut *mut c_void,
    context: *mut c_void,
    key: *mut c_void,
) -> CUresult {
    let Some(context) = context_of(context) else {
        return INVALID_CONTEXT;
    };
    let key = key as usize;
    let changes = CHANGES.load(Ordering::Acquire);
    let found = match LAST_GOT.with(Cell::get) {
        Some((c, k, found, seen)) if c == context && k == key && seen == changes => Some(found),
        _ => {
            let found = lock(&STORAGE)
                .as_ref()
                .and_then(|s| s.get(&(context, key)).copied());
            if let Some(found) = found {
                LAST_GOT.with(|last| last.set(Some((context, key, found, changes))));
            }
            found
        }
    };
    match found {
        Some(found) if !value.is_null() => {
            // SAFETY: non-NULL; writable by the table's contract.
            unsafe { value.write(found as *mut c_void) };
            SUCCESS
        }
        _ => INVALID_HANDLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_put_is_got_until_removed() {
        let context = 0x5000 as *mut c_void;
        let key = 0x10 as *mut c_void;
        let mut value = std::ptr::null_mut();
        assert_eq!(get(&mut value, context, key), INVALID_HANDLE);
        assert_eq!(
            put(context, key, 0x77 as *mut c_void, std::ptr::null()),
            SUCCESS
        );
        assert_eq!(get(&mut value, context, key), SUCCESS);
        assert_eq!(value as usize, 0x77);
        assert_eq!(remove(context, key), SUCCESS);
        assert_eq!(get(&mut value, context, key), INVALID_HANDLE);
    }
}
