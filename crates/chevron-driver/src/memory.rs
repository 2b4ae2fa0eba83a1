//! Memory: device, pinned, managed and registered allocations, address ranges, copies and
//! fills. Each is the runtime's own operation (`cudart::memory`), so a `CUdeviceptr` from
//! `cuMemAlloc` and a pointer from `cudaMalloc` are the same kind of thing, in the same table.
//! Every call needs a current context and runs on its device.

use std::ffi::{c_uint, c_void};

use cudart::memory::{self as rt, place_of, Place};
use cudart::{mirror, state};

use crate::context::require_current;
use crate::result::{
    entry, runtime, store, CUresult, DriverError, DriverResult, INVALID_VALUE, NOT_FOUND,
};

/// `CUdeviceptr`.
#[allow(non_camel_case_types)]
pub type CUdeviceptr = u64;

/// Makes the current context's device the runtime's current one.
pub fn enter() -> DriverResult {
    let context = require_current()?;
    state::set_current(context.ordinal)?;
    Ok(())
}

fn nonzero(bytes: usize) -> DriverResult {
    if bytes == 0 {
        return Err(DriverError::new(INVALID_VALUE, "a size of 0 bytes"));
    }
    Ok(())
}

/// Allocates device memory.
#[no_mangle]
pub extern "C" fn cuMemAlloc_v2(out: *mut CUdeviceptr, bytes: usize) -> CUresult {
    entry("cuMemAlloc", || {
        enter()?;
        nonzero(bytes)?;
        runtime(rt::cudaMalloc(out.cast(), bytes))
    })
}

/// Frees device or managed memory.
#[no_mangle]
pub extern "C" fn cuMemFree_v2(ptr: CUdeviceptr) -> CUresult {
    entry("cuMemFree", || {
        enter()?;
        runtime(rt::cudaFree(ptr as *mut c_void))
    })
}

/// Allocates pitched device memory (rows padded to 256 bytes).
#[no_mangle]
pub extern "C" fn cuMemAllocPitch_v2(
    out: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_bytes: c_uint,
) -> CUresult {
    entry("cuMemAllocPitch", || {
        enter()?;
        if !matches!(element_bytes, 4 | 8 | 16) {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("ElementSizeBytes {element_bytes} (4, 8 or 16)"),
            ));
        }
        runtime(cudart::limits::cudaMallocPitch(
            out.cast(),
            pitch,
            width,
            height,
        ))
    })
}

/// Allocates page-locked host memory.
#[no_mangle]
pub extern "C" fn cuMemAllocHost_v2(out: *mut *mut c_void, bytes: usize) -> CUresult {
    entry("cuMemAllocHost", || {
        enter()?;
        runtime(rt::cudaMallocHost(out, bytes))
    })
}

/// Allocates page-locked host memory with flags (portable, mapped, write-combined).
#[no_mangle]
pub extern "C" fn cuMemHostAlloc(out: *mut *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    entry("cuMemHostAlloc", || {
        enter()?;
        runtime(rt::cudaHostAlloc(out, bytes, flags))
    })
}

/// Frees memory from `cuMemAllocHost`/`cuMemHostAlloc`.
#[no_mangle]
pub extern "C" fn cuMemFreeHost(ptr: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", || runtime(rt::cudaFreeHost(ptr)))
}

/// The device address of pinned or registered host memory (the same address: unified
/// addressing).
#[no_mangle]
pub extern "C" fn cuMemHostGetDevicePointer_v2(
    out: *mut CUdeviceptr,
    host: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry("cuMemHostGetDevicePointer", || {
        runtime(rt::cudaHostGetDevicePointer(out.cast(), host, flags))
    })
}

/// Page-locks (registers) host memory.
#[no_mangle]
pub extern "C" fn cuMemHostRegister_v2(host: *mut c_void, bytes: usize, flags: c_uint) -> CUresult {
    entry("cuMemHostRegister", || {
        enter()?;
        runtime(rt::cudaHostRegister(host, bytes, flags))
    })
}

/// Unregisters host memory.
#[no_mangle]
pub extern "C" fn cuMemHostUnregister(host: *mut c_void) -> CUresult {
    entry("cuMemHostUnregister", || {
        runtime(rt::cudaHostUnregister(host))
    })
}

/// Allocates managed memory.
#[no_mangle]
pub extern "C" fn cuMemAllocManaged(
    out: *mut CUdeviceptr,
    bytes: usize,
    flags: c_uint,
) -> CUresult {
    entry("cuMemAllocManaged", || {
        enter()?;
        nonzero(bytes)?;
        runtime(rt::cudaMallocManaged(out.cast(), bytes, flags))
    })
}

/// Free and total memory of the current context's device.
#[no_mangle]
pub extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    entry("cuMemGetInfo", || {
        enter()?;
        runtime(rt::cudaMemGetInfo(free, total))
    })
}

/// The allocation containing `ptr`: its base and size (either output may be NULL).
#[no_mangle]
pub extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    ptr: CUdeviceptr,
) -> CUresult {
    entry("cuMemGetAddressRange", || {
        enter()?;
        let found = state::devices()?
            .iter()
            .find_map(|s| s.device.allocation_of(ptr))
            .map(|(start, len)| (start, len as usize))
            .or_else(|| mirror::range_of(ptr as usize).map(|(s, l)| (s as u64, l)));
        let (start, len) = found.ok_or_else(|| {
            DriverError::new(NOT_FOUND, format!("{ptr:#x} is not in an allocation"))
        })?;
        if !base.is_null() {
            store(base, start, "pbase")?;
        }
        if !size.is_null() {
            store(size, len, "psize")?;
        }
        Ok(())
    })
}

/// A copy of `bytes` from `src` to `dst` on `stream` (NULL: the legacy stream), waiting for it
/// when `sync`. Both pointers are classified by address (unified addressing). An asynchronous
/// copy on a capturing stream becomes a copy node, as the runtime's does.
fn copy(dst: u64, src: u64, bytes: usize, stream: *mut c_void, sync: bool) -> DriverResult {
    enter()?;
    if !sync {
        if let Some(captured) = cudart::graphs::capture_copy(stream, dst, src, bytes) {
            return captured.map_err(Into::into);
        }
    }
    let (_, stream) = state::submit_stream(stream)?;
    cudart::copy::copy(&stream, dst, src, bytes)?;
    if sync {
        stream.synchronize()?;
        mirror::pull_all()?;
    }
    Ok(())
}

macro_rules! copies {
    ($($(#[$doc:meta])* $name:ident, $label:literal, ($($arg:ident: $ty:ty),*), $dst:expr, $src:expr, $bytes:expr, $stream:expr, $sync:expr;)*) => {
        $(
            $(#[$doc])*
            #[no_mangle]
            pub extern "C" fn $name($($arg: $ty),*) -> CUresult {
                entry($label, || copy($dst as u64, $src as u64, $bytes, $stream, $sync))
            }
        )*
    };
}

const LEGACY: *mut c_void = std::ptr::null_mut();
const PER_THREAD: *mut c_void = state::STREAM_PER_THREAD as *mut c_void;

/// `stream`, or the per-thread default stream for NULL (`_ptsz` entry points).
fn per_thread(stream: *mut c_void) -> *mut c_void {
    cudart::launch::per_thread_default(stream)
}

copies! {
    /// Copies between any two addresses.
    cuMemcpy, "cuMemcpy", (dst: CUdeviceptr, src: CUdeviceptr, n: usize), dst, src, n, LEGACY, true;
    /// Host to device.
    cuMemcpyHtoD_v2, "cuMemcpyHtoD", (dst: CUdeviceptr, src: *const c_void, n: usize), dst, src, n, LEGACY, true;
    /// Device to host.
    cuMemcpyDtoH_v2, "cuMemcpyDtoH", (dst: *mut c_void, src: CUdeviceptr, n: usize), dst, src, n, LEGACY, true;
    /// Device to device.
    cuMemcpyDtoD_v2, "cuMemcpyDtoD", (dst: CUdeviceptr, src: CUdeviceptr, n: usize), dst, src, n, LEGACY, true;
    /// Copies between any two addresses, on `s`.
    cuMemcpyAsync, "cuMemcpyAsync", (dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, s, false;
    /// Host to device, on `s`.
    cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync", (dst: CUdeviceptr, src: *const c_void, n: usize, s: *mut c_void), dst, src, n, s, false;
    /// Device to host, on `s`.
    cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync", (dst: *mut c_void, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, s, false;
    /// Device to device, on `s`.
    cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync", (dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, s, false;
    /// [`cuMemcpy`] on the per-thread default stream.
    cuMemcpy_ptds, "cuMemcpy", (dst: CUdeviceptr, src: CUdeviceptr, n: usize), dst, src, n, PER_THREAD, true;
    /// [`cuMemcpyHtoD_v2`] on the per-thread default stream.
    cuMemcpyHtoD_v2_ptds, "cuMemcpyHtoD", (dst: CUdeviceptr, src: *const c_void, n: usize), dst, src, n, PER_THREAD, true;
    /// [`cuMemcpyDtoH_v2`] on the per-thread default stream.
    cuMemcpyDtoH_v2_ptds, "cuMemcpyDtoH", (dst: *mut c_void, src: CUdeviceptr, n: usize), dst, src, n, PER_THREAD, true;
    /// [`cuMemcpyDtoD_v2`] on the per-thread default stream.
    cuMemcpyDtoD_v2_ptds, "cuMemcpyDtoD", (dst: CUdeviceptr, src: CUdeviceptr, n: usize), dst, src, n, PER_THREAD, true;
    /// [`cuMemcpyAsync`], NULL meaning the per-thread default stream.
    cuMemcpyAsync_ptsz, "cuMemcpyAsync", (dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, per_thread(s), false;
    /// [`cuMemcpyHtoDAsync_v2`], NULL meaning the per-thread default stream.
    cuMemcpyHtoDAsync_v2_ptsz, "cuMemcpyHtoDAsync", (dst: CUdeviceptr, src: *const c_void, n: usize, s: *mut c_void), dst, src, n, per_thread(s), false;
    /// [`cuMemcpyDtoHAsync_v2`], NULL meaning the per-thread default stream.
    cuMemcpyDtoHAsync_v2_ptsz, "cuMemcpyDtoHAsync", (dst: *mut c_void, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, per_thread(s), false;
    /// [`cuMemcpyDtoDAsync_v2`], NULL meaning the per-thread default stream.
    cuMemcpyDtoDAsync_v2_ptsz, "cuMemcpyDtoDAsync", (dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: *mut c_void), dst, src, n, per_thread(s), false;
}

/// Fills `count` elements of `element_bytes` at `dst` with `value` on `stream`.
pub(crate) fn fill(
    dst: CUdeviceptr,
    value: u32,
    element_bytes: u32,
    count: usize,
    stream: *mut c_void,
    sync: bool,
) -> DriverResult {
    enter()?;
    if !sync {
        if let Some(captured) =
            cudart::graphs::capture_fill(stream, dst, value, element_bytes, count as u64)
        {
            return captured.map_err(Into::into);
        }
    }
    let (_, stream) = state::submit_stream(stream)?;
    if count == 0 {
        return Ok(());
    }
    match place_of(dst) {
        Place::Device(_) => {
            stream.memset_at(dst, value, element_bytes, count as u64)?;
        }
        Place::Host if mirror::find(dst as usize).is_some() => {
            mirror::pull_all()?;
            stream.synchronize()?;
            for i in 0..count {
                let at = dst as usize + i * element_bytes as usize;
                // SAFETY: `dst` starts managed or pinned host memory the caller owns, holding
                // `count` elements by the API's contract.
                unsafe {
                    match element_bytes {
                        1 => (at as *mut u8).write_unaligned(value as u8),
                        2 => (at as *mut u16).write_unaligned(value as u16),
                        _ => (at as *mut u32).write_unaligned(value),
                    }
                }
            }
        }
        Place::Host => {
            return Err(DriverError::new(
                INVALID_VALUE,
                format!("{dst:#x} is not device memory"),
            ))
        }
    }
    if sync {
        stream.synchronize()?;
    }
    Ok(())
}

macro_rules! fills {
    ($($name:ident, $label:literal, $ty:ty, $bytes:literal, $stream:ident => $resolved:expr, $sync:expr;)*) => {
        $(
            #[doc = concat!("`", $label, "`: fills elements of ", stringify!($bytes), " byte(s).")]
            #[no_mangle]
            pub extern "C" fn $name(dst: CUdeviceptr, value: $ty, count: usize, $stream: *mut c_void) -> CUresult {
                entry($label, || fill(dst, u32::from(value), $bytes, count, $resolved, $sync))
            }
        )*
    };
}

fills! {
    cuMemsetD8Async, "cuMemsetD8Async", u8, 1, s => s, false;
    cuMemsetD16Async, "cuMemsetD16Async", u16, 2, s => s, false;
    cuMemsetD32Async, "cuMemsetD32Async", u32, 4, s => s, false;
    cuMemsetD8Async_ptsz, "cuMemsetD8Async", u8, 1, s => per_thread(s), false;
    cuMemsetD16Async_ptsz, "cuMemsetD16Async", u16, 2, s => per_thread(s), false;
    cuMemsetD32Async_ptsz, "cuMemsetD32Async", u32, 4, s => per_thread(s), false;
}

/// Fills `count` bytes at `dst` with `value`.
#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, value: u8, count: usize) -> CUresult {
    entry("cuMemsetD8", || {
        fill(dst, value.into(), 1, count, LEGACY, true)
    })
}

/// Fills `count` 16-bit elements at `dst` with `value`.
#[no_mangle]
pub extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, value: u16, count: usize) -> CUresult {
    entry("cuMemsetD16", || {
        fill(dst, value.into(), 2, count, LEGACY, true)
    })
}

/// Fills `count` 32-bit elements at `dst` with `value`.
#[no_mangle]
pub extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, value: u32, count: usize) -> CUresult {
    entry("cuMemsetD32", || fill(dst, value, 4, count, LEGACY, true))
}

/// [`cuMemsetD8_v2`] on the per-thread default stream.
#[no_mangle]
pub extern "C" fn cuMemsetD8_v2_ptds(dst: CUdeviceptr, value: u8, count: usize) -> CUresult {
    entry("cuMemsetD8", || {
        fill(dst, value.into(), 1, count, PER_THREAD, true)
    })
}

/// [`cuMemsetD32_v2`] on the per-thread default stream.
#[no_mangle]
pub extern "C" fn cuMemsetD32_v2_ptds(dst: CUdeviceptr, value: u32, count: usize) -> CUresult {
    entry("cuMemsetD32", || {
        fill(dst, value, 4, count, PER_THREAD, true)
    })
}
