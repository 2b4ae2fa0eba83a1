//! Mipmapped arrays: `cudaMallocMipmappedArray`, `cudaGetMipmappedArrayLevel` and
//! `cudaFreeMipmappedArray` over [`chevron::texture::Array`]s with levels, kept by handle in
//! [`MIPMAPS`] (the driver's `cuMipmappedArrayCreate` and kin keep theirs here too). A level
//! handed out is an array of its own in the arrays' table, copied to and from like any other;
//! it lives until its mipmapped array is freed.

use std::collections::HashMap;
use std::ffi::{c_uint, c_void};

use chevron::texture::Array;

use crate::arrays_3d::{array_desc, Extent};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::state::{self, lock};
use crate::textures::{free_array, keep_array, ChannelFormatDesc, Mipmapped, MIPMAPS};

/// Keeps the mipmapped array `array` and returns its handle.
pub fn keep_mipmapped(array: Array) -> u64 {
    let handle = array.handle();
    let kept = Mipmapped {
        array,
        levels: Vec::new(),
    };
    lock(&MIPMAPS)
        .get_or_insert_with(HashMap::new)
        .insert(handle, kept);
    handle
}

/// The handle of level `level` of the mipmapped array `handle`, kept in the arrays' table
/// until the mipmapped array is freed; `None` if `handle` names no live mipmapped array.
pub fn mipmapped_level(handle: u64, level: u32) -> Option<chevron::Result<u64>> {
    // The arrays' table is locked only after the mipmapped arrays' is released (texture
    // objects lock them the other way round).
    let array = with_mipmapped(handle, |array| array.level(level))?;
    let level = match array {
        Ok(array) => keep_array(array),
        Err(error) => return Some(Err(error)),
    };
    let recorded = lock(&MIPMAPS)
        .as_mut()
        .and_then(|m| m.get_mut(&handle))
        .map(|kept| {
            if !kept.levels.contains(&level) {
                kept.levels.push(level);
            }
        });
    if recorded.is_none() {
        // Freed meanwhile: so is its level.
        free_array(level);
        return None;
    }
    Some(Ok(level))
}

/// Frees the mipmapped array `handle` and the levels handed out; false if it is not live.
pub fn free_mipmapped(handle: u64) -> bool {
    let Some(kept) = lock(&MIPMAPS).as_mut().and_then(|m| m.remove(&handle)) else {
        return false;
    };
    for level in kept.levels {
        free_array(level);
    }
    true
}

/// Runs `f` on the live mipmapped array `handle` (None if there is none).
pub fn with_mipmapped<R>(handle: u64, f: impl FnOnce(&Array) -> R) -> Option<R> {
    lock(&MIPMAPS)
        .as_ref()
        .and_then(|m| m.get(&handle))
        .map(|kept| f(&kept.array))
}

/// Allocates a mipmapped array of `num_levels` levels (clamped to `[1, 1 + floor(log2(largest
/// dimension))]`, as CUDA does) whose level 0 is `extent`; `flags` as `cudaMalloc3DArray`'s.
///
/// # Safety
/// `out` is NULL or valid for a write; `desc` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocMipmappedArray(
    out: *mut *mut c_void,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    num_levels: c_uint,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaMallocMipmappedArray", || {
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "mipmappedArray is NULL"));
        }
        // SAFETY: NULL or valid (caller).
        let desc = unsafe { desc.as_ref() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "desc is NULL"))?;
        let plain = array_desc(desc, extent, flags, 0)?;
        let levels = num_levels.clamp(1, plain.full_chain());
        let desc = array_desc(desc, extent, flags, levels)?;
        let array = Array::new(&state::current()?.device, desc)?;
        store(out, keep_mipmapped(array) as *mut c_void, "mipmappedArray")
    })
}

/// Level `level` of a mipmapped array, as an array (`cudaArray_t`) that copies and surfaces
/// take; it stays valid until the mipmapped array is freed.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGetMipmappedArrayLevel(
    out: *mut *mut c_void,
    mipmap: *const c_void,
    level: c_uint,
) -> cudaError_t {
    guard("cudaGetMipmappedArrayLevel", || {
        if out.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "levelArray is NULL"));
        }
        let handle = level_of(mipmap as u64, level)?;
        store(out, handle as usize as *mut c_void, "levelArray")
    })
}

fn level_of(mipmap: u64, level: u32) -> CudaResult<u64> {
    let level = mipmapped_level(mipmap, level).ok_or_else(|| {
        CudaError::new(
            INVALID_VALUE,
            format!("{mipmap:#x} is not a live mipmapped array"),
        )
    })?;
    Ok(level?)
}

/// Frees a mipmapped array and its levels (NULL is a no-op).
#[no_mangle]
pub extern "C" fn cudaFreeMipmappedArray(mipmap: *mut c_void) -> cudaError_t {
    guard("cudaFreeMipmappedArray", || {
        if mipmap.is_null() || free_mipmapped(mipmap as u64) {
            return Ok(());
        }
        Err(CudaError::new(
            INVALID_VALUE,
            format!("{mipmap:p} is not a live mipmapped array"),
        ))
    })
}
