//! Pointer attributes: what an address is (device memory of which device, pinned or managed
//! host memory), its allocation's range, and its context. The runtime's tables answer, so a
//! pointer from either API is known to both.

use std::ffi::{c_int, c_uint, c_void};

use cudart::mirror::{self, MirrorKind};
use cudart::state;

use crate::context::{check_initialised, primary_handle};
use crate::memory::CUdeviceptr;
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_VALUE};

/// `CU_MEMORYTYPE_HOST`, `…_DEVICE`.
const MEMORY_HOST: c_uint = 1;
const MEMORY_DEVICE: c_uint = 2;

/// What chevron knows of an address.
struct Known {
    ordinal: usize,
    memory_type: c_uint,
    managed: bool,
    start: u64,
    size: u64,
}

fn classify(ptr: CUdeviceptr) -> DriverResult<Option<Known>> {
    check_initialised()?;
    let devices = state::devices()?;
    for (ordinal, state) in devices.iter().enumerate() {
        if let Some((start, size)) = state.device.allocation_of(ptr) {
            return Ok(Some(Known {
                ordinal,
                memory_type: MEMORY_DEVICE,
                managed: false,
                start,
                size,
            }));
        }
    }
    let Some((start, kind, ordinal)) = mirror::find(ptr as usize) else {
        return Ok(None);
    };
    let size = mirror::range_of(start).map_or(0, |(_, len)| len as u64);
    let managed = matches!(kind, MirrorKind::Managed);
    Ok(Some(Known {
        ordinal,
        // NVIDIA's driver reports managed memory as device memory (never
        // `CU_MEMORYTYPE_UNIFIED`); `CU_POINTER_ATTRIBUTE_IS_MANAGED` tells it apart.
        memory_type: if managed { MEMORY_DEVICE } else { MEMORY_HOST },
        managed,
        start: start as u64,
        size,
    }))
}

/// Writes one attribute of `known` (NULL: unknown memory) to `data`; `strict` refuses unknown
/// memory and the host pointer of device memory, as `cuPointerGetAttribute` does
/// (`cuPointerGetAttributes` reports zeros and NULL).
///
/// # Safety
/// `data` is writable for the attribute's type.
unsafe fn write_attribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: CUdeviceptr,
    known: Option<&Known>,
    strict: bool,
) -> DriverResult {
    if data.is_null() {
        return Err(DriverError::new(INVALID_VALUE, "data is NULL"));
    }
    let Some(known) = known else {
        if strict {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("{ptr:#x} is not memory chevron allocated or registered"),
            ));
        }
        // SAFETY: every attribute's type is at least as wide as a u32 zero… except the
        // 8-byte ones, which get 8 zero bytes.
        unsafe {
            match attribute {
                1 | 3 | 4 | 7 | 11 | 12 | 17 => data.cast::<u64>().write_unaligned(0),
                9 => data.cast::<c_int>().write_unaligned(-2),
                _ => data.cast::<u32>().write_unaligned(0),
            }
        }
        return Ok(());
    };
    let host = known.memory_type != MEMORY_DEVICE;
    // SAFETY: each attribute written with its documented type.
    unsafe {
        match attribute {
            1 => data
                .cast::<*mut c_void>()
                .write_unaligned(primary_handle(known.ordinal)?),
            2 => data.cast::<c_uint>().write_unaligned(known.memory_type),
            3 => data.cast::<u64>().write_unaligned(ptr),
            4 if host => data.cast::<u64>().write_unaligned(ptr),
            // `cuPointerGetAttributes` (and so `cudaPointerGetAttributes`) reports NULL.
            4 if !strict => data.cast::<u64>().write_unaligned(0),
            4 => {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    format!("{ptr:#x} is device memory: it has no host pointer"),
                ))
            }
            5 | 10 | 14 | 15 | 17 => data.cast::<u64>().write_unaligned(0),
            6 | 13 => data.cast::<u32>().write_unaligned(1),
            7 => data.cast::<u64>().write_unaligned(known.start),
            8 => data.cast::<u32>().write_unaligned(u32::from(known.managed)),
            9 => data.cast::<c_int>().write_unaligned(known.ordinal as c_int),
            11 => data.cast::<u64>().write_unaligned(known.start),
            12 => data.cast::<usize>().write_unaligned(known.size as usize),
            16 => data.cast::<u32>().write_unaligned(3),
            other => {
                return Err(DriverError::new(
                    INVALID_VALUE,
                    format!("{other} is not a CUpointer_attribute chevron answers"),
                ))
            }
        }
    }
    Ok(())
}

/// One attribute of a pointer.
///
/// # Safety
/// `data` is writable for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: CUdeviceptr,
) -> CUresult {
    entry("cuPointerGetAttribute", || {
        let known = classify(ptr)?;
        // SAFETY: forwarded from the caller.
        unsafe { write_attribute(data, attribute, ptr, known.as_ref(), true) }
    })
}

/// Several attributes of a pointer; unknown memory reads as zeros (type 0: unregistered).
///
/// # Safety
/// `attributes` and `data` hold `count` entries; each `data` entry is writable for its type.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(
    count: c_uint,
    attributes: *const c_int,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    entry("cuPointerGetAttributes", || {
        if count > 0 && (attributes.is_null() || data.is_null()) {
            return Err(DriverError::new(
                INVALID_VALUE,
                "attributes or data is NULL",
            ));
        }
        let known = classify(ptr)?;
        for i in 0..count as usize {
            // SAFETY: `count` entries each, by contract.
            let (attribute, out) = unsafe { (*attributes.add(i), *data.add(i)) };
            // SAFETY: forwarded from the caller.
            unsafe { write_attribute(out, attribute, ptr, known.as_ref(), false) }?;
        }
        Ok(())
    })
}
