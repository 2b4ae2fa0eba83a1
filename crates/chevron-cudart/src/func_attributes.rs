//! Kernel attributes a program sets with `cudaFuncSetAttribute` and reads back with
//! `cudaFuncGetAttributes`, by host stub.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

use crate::state::lock;

/// `cudaFuncAttributeMaxDynamicSharedMemorySize`.
pub const MAX_DYNAMIC_SHARED_MEMORY_SIZE: c_int = 8;

/// The dynamic shared memory limit set per kernel (host stub address → bytes).
static MAX_DYNAMIC_SHARED: Mutex<Option<HashMap<usize, c_int>>> = Mutex::new(None);

/// Records the limit `cudaFuncSetAttribute` set for `func`.
pub fn set_max_dynamic_shared(func: *const c_void, bytes: c_int) {
    lock(&MAX_DYNAMIC_SHARED)
        .get_or_insert_with(HashMap::new)
        .insert(func as usize, bytes);
}

/// The limit set for `func`, if any.
pub fn max_dynamic_shared(func: *const c_void) -> Option<c_int> {
    lock(&MAX_DYNAMIC_SHARED)
        .as_ref()
        .and_then(|set| set.get(&(func as usize)).copied())
}
