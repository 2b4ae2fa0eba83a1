//! `cudaGetDriverEntryPoint` and `cudaGetDriverEntryPointByVersion`: a driver function by its
//! base name, as CUDA's samples get `cuTensorMapEncodeTiled`. The driver API that runs beside
//! this runtime (chevron's, in the same library as `libchevron_driver.so`) answers through its
//! `cuGetProcAddress_v2`, found in the process's global scope; without one, every symbol is
//! reported not found.

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE};

/// `cudaDriverEntryPointSuccess`, `cudaDriverEntryPointSymbolNotFound`.
const FOUND: c_int = 0;
const NOT_FOUND: c_int = 1;
/// The CUDA version the runtime's own lookups name (13.0).
const RUNTIME_VERSION: c_uint = 13000;

/// `cuGetProcAddress_v2`'s signature.
type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *const c_void, c_int, u64, *mut c_int) -> c_int;

extern "C" {
    /// glibc's `dlsym`; a NULL handle is `RTLD_DEFAULT`, the process's global scope.
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// The driver's `cuGetProcAddress_v2`, if a driver library is loaded.
fn driver() -> Option<GetProcAddress> {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only reads.
    let found = unsafe { dlsym(std::ptr::null_mut(), c"cuGetProcAddress_v2".as_ptr()) };
    // SAFETY: a non-NULL `cuGetProcAddress_v2` has the CUDA 12 signature.
    (!found.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, GetProcAddress>(found) })
}

/// Looks `symbol` up for `version` with `flags`; writes the function (NULL when not found) and
/// the status.
///
/// # Safety
/// `symbol` is NULL or NUL-terminated; `func` is NULL or writable; `status` is NULL or
/// writable.
unsafe fn lookup(
    call: &str,
    symbol: *const c_char,
    func: *mut *mut c_void,
    version: c_uint,
    flags: c_ulonglong,
    status: *mut c_int,
) -> cudaError_t {
    guard(call, || {
        if symbol.is_null() || func.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "symbol or funcPtr is NULL"));
        }
        if flags > 2 {
            return Err(CudaError::new(INVALID_VALUE, format!("flags {flags:#x}")));
        }
        let mut found: *const c_void = std::ptr::null();
        if let Some(get) = driver() {
            let mut driver_status = NOT_FOUND;
            // SAFETY: `symbol` is NUL-terminated by contract; the outputs are locals.
            unsafe {
                get(
                    symbol,
                    &mut found,
                    version as c_int,
                    flags,
                    &mut driver_status,
                )
            };
            if driver_status != FOUND {
                found = std::ptr::null();
            }
        }
        // SAFETY: writable by contract (checked non-NULL above; `status` may be NULL).
        unsafe {
            *func = found.cast_mut();
            if !status.is_null() {
                *status = if found.is_null() { NOT_FOUND } else { FOUND };
            }
        }
        // A name the driver does not have is a successful call reporting "not found".
        Ok(())
    })
}

/// A driver function by base name, for the runtime's own CUDA version.
///
/// # Safety
/// As [`lookup`].
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPoint(
    symbol: *const c_char,
    func: *mut *mut c_void,
    flags: c_ulonglong,
    status: *mut c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe {
        lookup(
            "cudaGetDriverEntryPoint",
            symbol,
            func,
            RUNTIME_VERSION,
            flags,
            status,
        )
    }
}

/// [`cudaGetDriverEntryPoint`] under the per-thread default stream.
///
/// # Safety
/// As [`lookup`].
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPoint_ptsz(
    symbol: *const c_char,
    func: *mut *mut c_void,
    flags: c_ulonglong,
    status: *mut c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe {
        lookup(
            "cudaGetDriverEntryPoint",
            symbol,
            func,
            RUNTIME_VERSION,
            flags,
            status,
        )
    }
}

/// A driver function by base name, in the ABI of CUDA `version` (e.g. 12000).
///
/// # Safety
/// As [`lookup`].
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPointByVersion(
    symbol: *const c_char,
    func: *mut *mut c_void,
    version: c_uint,
    flags: c_ulonglong,
    status: *mut c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe {
        lookup(
            "cudaGetDriverEntryPointByVersion",
            symbol,
            func,
            version,
            flags,
            status,
        )
    }
}

/// [`cudaGetDriverEntryPointByVersion`] under the per-thread default stream.
///
/// # Safety
/// As [`lookup`].
#[no_mangle]
pub unsafe extern "C" fn cudaGetDriverEntryPointByVersion_ptsz(
    symbol: *const c_char,
    func: *mut *mut c_void,
    version: c_uint,
    flags: c_ulonglong,
    status: *mut c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe {
        lookup(
            "cudaGetDriverEntryPointByVersion",
            symbol,
            func,
            version,
            flags,
            status,
        )
    }
}
