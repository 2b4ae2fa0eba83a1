//! Queries about host and managed memory: `cudaHostGetFlags` (the flags of a pinned
//! allocation) and `cudaMemRangeGetAttribute(s)` (the hints of a managed range, kept by
//! [`managed_hints`]).
//!
//! Pinned memory is portable and mapped on every chevron device (as with CUDA's unified
//! addressing), so `cudaHostGetFlags` reports `cudaHostAllocPortable | cudaHostAllocMapped`
//! with the flags the allocation asked for.

use std::ffi::{c_int, c_uint, c_void};

use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::managed_hints::{self, Hints, Location};
use crate::memory::store;
use crate::mirror::{self, MirrorKind};

/// `cudaHostAllocMapped`: every page-locked allocation is mapped under unified addressing;
/// `cudaHostAllocPortable` is reported only when asked for (NVIDIA's runtime on an H200:
/// `cudaMallocHost` memory 0x2, `cudaHostAlloc(mapped | write-combined)` 0x6).
const MAPPED: c_uint = 0x2;
/// `cudaCpuDeviceId`.
const CPU_DEVICE_ID: c_int = -1;
/// `cudaInvalidDeviceId`.
const INVALID_DEVICE_ID: c_int = -2;
/// `cudaMemLocationTypeDevice`.
const LOCATION_DEVICE: c_int = 1;

/// The flags of the pinned allocation holding `host`.
///
/// # Safety
/// `flags` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cudaHostGetFlags(flags: *mut c_uint, host: *mut c_void) -> cudaError_t {
    guard("cudaHostGetFlags", || {
        if flags.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "pFlags is NULL"));
        }
        let start = match mirror::find(host as usize) {
            Some((start, MirrorKind::Pinned, _)) => start,
            _ => {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("{host:p} is not in memory from cudaHostAlloc or cudaMallocHost"),
                ))
            }
        };
        let asked = mirror::flags(start);
        store(flags, asked | MAPPED, "pFlags")
    })
}

/// The one value all `parts` share, if they share one.
fn common<T: PartialEq + Clone>(parts: &[Hints], value: impl Fn(&Hints) -> T) -> Option<T> {
    let first = value(parts.first()?);
    parts.iter().all(|h| value(h) == first).then_some(first)
}

/// A location as the legacy attributes report it: the device, `cudaCpuDeviceId` for the
/// host, `cudaInvalidDeviceId` for none or several.
fn legacy_id(location: Option<Option<Location>>) -> c_int {
    match location.flatten() {
        Some((LOCATION_DEVICE, id)) => id,
        Some(_) => CPU_DEVICE_ID,
        None => INVALID_DEVICE_ID,
    }
}

/// The range `[ptr, ptr + count)`, checked to lie in one managed allocation.
fn managed_range(ptr: *const c_void, count: usize) -> CudaResult<(usize, usize)> {
    let start = ptr as usize;
    let in_managed = matches!(mirror::find(start), Some((_, MirrorKind::Managed, _)));
    let end = start.checked_add(count).filter(|_| count > 0);
    match (in_managed, end, mirror::range_of(start)) {
        (true, Some(end), Some((base, len))) if end <= base + len => Ok((start, end)),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            format!("[{ptr:p}, +{count}) is not a range of one managed allocation"),
        )),
    }
}

/// Writes attribute `attribute` of the hints `parts` to `data` (`size` bytes).
fn write_attribute(
    data: *mut c_void,
    size: usize,
    attribute: c_int,
    parts: &[Hints],
) -> CudaResult {
    if data.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "data is NULL"));
    }
    let ints = data as *mut c_int;
    let one = |value: c_int| -> CudaResult {
        if size != 4 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("dataSize {size} (attribute {attribute} is 4 bytes)"),
            ));
        }
        // SAFETY: the caller's guarantee: `size` (4) writable bytes; written unaligned.
        unsafe { ints.write_unaligned(value) };
        Ok(())
    };
    let preferred = common(parts, |h| h.preferred);
    let prefetched = common(parts, |h| h.last_prefetch);
    let kind = |location: Option<Option<Location>>| location.flatten().map_or(0, |l| l.0);
    let id = |location: Option<Option<Location>>| match location.flatten() {
        Some((_, id)) => id,
        None => INVALID_DEVICE_ID,
    };
    match attribute {
        1 => one(c_int::from(parts.iter().all(|h| h.read_mostly))),
        2 => one(legacy_id(preferred)),
        3 => {
            if size == 0 || !size.is_multiple_of(4) {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("dataSize {size} (a non-zero multiple of 4)"),
                ));
            }
            let mut devices = parts
                .first()
                .map(|h| h.accessed_by.clone())
                .unwrap_or_default();
            devices.retain(|d| parts.iter().all(|h| h.accessed_by.contains(d)));
            let mut listed = devices.into_iter();
            for slot in 0..size / 4 {
                let value = listed.next().unwrap_or(INVALID_DEVICE_ID);
                // SAFETY: the caller's guarantee: `size` writable bytes; written unaligned.
                unsafe { ints.add(slot).write_unaligned(value) };
            }
            Ok(())
        }
        4 => one(legacy_id(prefetched)),
        5 => one(kind(preferred)),
        6 => one(id(preferred)),
        7 => one(kind(prefetched)),
        8 => one(id(prefetched)),
        other => Err(CudaError::new(
            INVALID_VALUE,
            format!("{other} is not a cudaMemRangeAttribute"),
        )),
    }
}

/// One attribute of the managed range `[ptr, ptr + count)`: the hints every byte of it has.
///
/// # Safety
/// `data` is NULL or has `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemRangeGetAttribute(
    data: *mut c_void,
    size: usize,
    attribute: c_int,
    ptr: *const c_void,
    count: usize,
) -> cudaError_t {
    guard("cudaMemRangeGetAttribute", || {
        let (start, end) = managed_range(ptr, count)?;
        write_attribute(data, size, attribute, &managed_hints::query(start, end))
    })
}

/// Several attributes of the managed range `[ptr, ptr + count)`, as
/// [`cudaMemRangeGetAttribute`] answers each.
///
/// # Safety
/// `data`, `sizes` and `attributes` are NULL or hold `count_attributes` entries, each
/// `data[i]` NULL or with `sizes[i]` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaMemRangeGetAttributes(
    data: *mut *mut c_void,
    sizes: *const usize,
    attributes: *const c_int,
    count_attributes: usize,
    ptr: *const c_void,
    count: usize,
) -> cudaError_t {
    guard("cudaMemRangeGetAttributes", || {
        if data.is_null() || sizes.is_null() || attributes.is_null() || count_attributes == 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "data, dataSizes and attributes must hold numAttributes (non-zero) entries",
            ));
        }
        let (start, end) = managed_range(ptr, count)?;
        let parts = managed_hints::query(start, end);
        for index in 0..count_attributes {
            // SAFETY: the caller's guarantee: `count_attributes` entries each.
            let (out, size, attribute) = unsafe {
                (
                    data.add(index).read_unaligned(),
                    sizes.add(index).read_unaligned(),
                    attributes.add(index).read_unaligned(),
                )
            };
            write_attribute(out, size, attribute, &parts)?;
        }
        Ok(())
    })
}
