//! `cuMipmappedArrayCreate`, `cuMipmappedArrayGetLevel` and `cuMipmappedArrayDestroy`:
//! mipmapped arrays over [`chevron::texture::Array`], kept in the runtime's table
//! ([`cudart::mipmapped`]) so mipmapped arrays made through either API are the same. A level
//! is a `CUarray` that copies and surfaces take, destroyed with its mipmapped array.

use std::ffi::{c_uint, c_void};

use chevron::texture::Array;
use cudart::{mipmapped, state};

use crate::array::{array_desc, CUDA_ARRAY3D_DESCRIPTOR};
use crate::memory::enter;
use crate::result::{
    entry, store, CUresult, DriverError, DriverResult, INVALID_HANDLE, INVALID_VALUE,
};

fn dead(handle: *mut c_void) -> DriverError {
    DriverError::new(
        INVALID_HANDLE,
        format!("{handle:p} is not a live mipmapped array"),
    )
}

fn create(desc: &CUDA_ARRAY3D_DESCRIPTOR, levels: c_uint) -> DriverResult<u64> {
    enter()?;
    if levels == 0 {
        return Err(DriverError::new(INVALID_VALUE, "numMipmapLevels is 0"));
    }
    // More levels than the extent has are the full chain, as the runtime clamps them.
    let levels = levels.min(array_desc(desc, 0)?.full_chain());
    let array = Array::new(&state::current()?.device, array_desc(desc, levels)?)?;
    Ok(mipmapped::keep_mipmapped(array))
}

/// `cuMipmappedArrayCreate`: a mipmapped array of `levels` levels (at most the full chain)
/// whose level 0 `desc` describes.
///
/// # Safety
/// `out` and `desc` are NULL or valid for the access CUDA's API documents.
#[no_mangle]
pub unsafe extern "C" fn cuMipmappedArrayCreate(
    out: *mut *mut c_void,
    desc: *const CUDA_ARRAY3D_DESCRIPTOR,
    levels: c_uint,
) -> CUresult {
    entry("cuMipmappedArrayCreate", || {
        // SAFETY: NULL or readable (caller's guarantee).
        let d = unsafe { desc.as_ref() }
            .ok_or_else(|| DriverError::new(INVALID_VALUE, "pMipmappedArrayDesc is NULL"))?;
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pHandle is NULL"));
        }
        let handle = create(d, levels)?;
        store(out, handle as usize as *mut c_void, "pHandle")
    })
}

/// `cuMipmappedArrayGetLevel`: level `level` as a `CUarray`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuMipmappedArrayGetLevel(
    out: *mut *mut c_void,
    array: *mut c_void,
    level: c_uint,
) -> CUresult {
    entry("cuMipmappedArrayGetLevel", || {
        if out.is_null() {
            return Err(DriverError::new(INVALID_VALUE, "pLevelArray is NULL"));
        }
        let handle =
            mipmapped::mipmapped_level(array as u64, level).ok_or_else(|| dead(array))??;
        store(out, handle as usize as *mut c_void, "pLevelArray")
    })
}

/// `cuMipmappedArrayDestroy`: the mipmapped array and its levels.
#[no_mangle]
pub extern "C" fn cuMipmappedArrayDestroy(array: *mut c_void) -> CUresult {
    entry("cuMipmappedArrayDestroy", || {
        if mipmapped::free_mipmapped(array as u64) {
            Ok(())
        } else {
            Err(dead(array))
        }
    })
}
