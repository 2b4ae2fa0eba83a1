//! Configuration calls programs make in passing: device limits, cache and shared-memory
//! preferences, peer access queries, stream priorities, pitched allocations, peer copies.
//! Preferences chevron's devices have no use for are accepted and change nothing.

use std::ffi::{c_int, c_uint, c_void};

use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE};
use crate::memory::store;
use crate::state;

/// `cudaLimitPrintfFifoSize`, `cudaLimitMallocHeapSize` and the stack size: what chevron
/// reports for each `cudaLimit`, by value.
fn limit_value(limit: c_int) -> Option<usize> {
    match limit {
        0 => Some(1024),    // cudaLimitStackSize
        1 => Some(1 << 20), // cudaLimitPrintfFifoSize
        2 => Some(8 << 20), // cudaLimitMallocHeapSize
        3 | 4 => Some(2),   // device runtime sync depth, pending launch count
        5 => Some(0),       // max L2 fetch granularity
        6 => Some(0),       // persisting L2 cache size
        _ => None,
    }
}

/// Accepts a device limit (chevron's devices have no fixed FIFO, heap or stack to resize).
#[no_mangle]
pub extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> cudaError_t {
    let _ = value;
    guard("cudaDeviceSetLimit", || {
        state::current()?;
        limit_value(limit)
            .map(drop)
            .ok_or_else(|| CudaError::new(INVALID_VALUE, format!("cudaLimit {limit}")))
    })
}

/// A device limit.
#[no_mangle]
pub extern "C" fn cudaDeviceGetLimit(value: *mut usize, limit: c_int) -> cudaError_t {
    guard("cudaDeviceGetLimit", || {
        let answer = limit_value(limit)
            .ok_or_else(|| CudaError::new(INVALID_VALUE, format!("cudaLimit {limit}")))?;
        store(value, answer, "pValue")
    })
}

/// Accepts a cache preference.
#[no_mangle]
pub extern "C" fn cudaDeviceSetCacheConfig(config: c_int) -> cudaError_t {
    let _ = config;
    guard("cudaDeviceSetCacheConfig", || state::current().map(drop))
}

/// Accepts a kernel's cache preference.
#[no_mangle]
pub extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, config: c_int) -> cudaError_t {
    let _ = config;
    guard("cudaFuncSetCacheConfig", || {
        crate::registry::kernel_entry(func).map(drop)
    })
}

/// Whether `device` can address `peer`'s memory directly: never (copies between devices work).
#[no_mangle]
pub extern "C" fn cudaDeviceCanAccessPeer(
    can: *mut c_int,
    device: c_int,
    peer: c_int,
) -> cudaError_t {
    guard("cudaDeviceCanAccessPeer", || {
        state::device(usize::try_from(device).unwrap_or(usize::MAX))?;
        state::device(usize::try_from(peer).unwrap_or(usize::MAX))?;
        store(can, 0, "canAccessPeer")
    })
}

/// Stream priorities: one level (0).
#[no_mangle]
pub extern "C" fn cudaDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> cudaError_t {
    guard("cudaDeviceGetStreamPriorityRange", || {
        if !least.is_null() {
            store(least, 0, "leastPriority")?;
        }
        if !greatest.is_null() {
            store(greatest, 0, "greatestPriority")?;
        }
        Ok(())
    })
}

/// The device flags: none set.
#[no_mangle]
pub extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> cudaError_t {
    guard("cudaGetDeviceFlags", || store(flags, 0, "flags"))
}

/// A pitched allocation: rows padded to 256 bytes.
#[no_mangle]
pub extern "C" fn cudaMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> cudaError_t {
    guard("cudaMallocPitch", || {
        let padded = width.div_ceil(256).max(1) * 256;
        let bytes = padded
            .checked_mul(height.max(1))
            .ok_or_else(|| CudaError::new(INVALID_VALUE, format!("{width} x {height} bytes")))?;
        store(pitch, padded, "pitch")?;
        match crate::memory::cudaMalloc(ptr, bytes) {
            0 => Ok(()),
            code => Err(CudaError::new(code, "")),
        }
    })
}

/// A copy between devices (through the host).
#[no_mangle]
pub extern "C" fn cudaMemcpyPeer(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    bytes: usize,
) -> cudaError_t {
    let _ = (dst_device, src_device);
    crate::memory::cudaMemcpy(dst, src, bytes, crate::abi::MEMCPY_DEFAULT)
}

/// `cudaMemLocation`, passed by value (`{ enum cudaMemLocationType type; int id; }`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemLocation {
    /// `cudaMemLocationType`.
    pub kind: c_int,
    /// The device ordinal or NUMA node.
    pub id: c_int,
}

/// Checks that `ptr` lies in managed memory, for the hints below.
fn check_managed(ptr: *const c_void) -> crate::errors::CudaResult {
    match crate::mirror::find(ptr as usize) {
        Some((_, crate::mirror::MirrorKind::Managed, _)) => Ok(()),
        _ => Err(CudaError::new(
            INVALID_VALUE,
            format!("{ptr:p} is not managed memory"),
        )),
    }
}

/// A prefetch hint for managed memory: accepted (managed data move at launches and
/// synchronizing calls).
#[no_mangle]
pub extern "C" fn cudaMemPrefetchAsync(
    ptr: *const c_void,
    bytes: usize,
    location: MemLocation,
    flags: c_uint,
    stream: *mut c_void,
) -> cudaError_t {
    let _ = (bytes, location, flags, stream);
    guard("cudaMemPrefetchAsync", || check_managed(ptr))
}

/// An advice for managed memory: accepted.
#[no_mangle]
pub extern "C" fn cudaMemAdvise(
    ptr: *const c_void,
    bytes: usize,
    advice: c_int,
    location: MemLocation,
) -> cudaError_t {
    let _ = (bytes, advice, location);
    guard("cudaMemAdvise", || check_managed(ptr))
}

/// Attaching managed memory to a stream: accepted.
#[no_mangle]
pub extern "C" fn cudaStreamAttachMemAsync(
    stream: *mut c_void,
    ptr: *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> cudaError_t {
    let _ = (stream, bytes, flags);
    guard("cudaStreamAttachMemAsync", || check_managed(ptr))
}

/// [`cudaMemPrefetchAsync`] of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemPrefetchAsync_ptsz(
    ptr: *const c_void,
    bytes: usize,
    location: MemLocation,
    flags: c_uint,
    stream: *mut c_void,
) -> cudaError_t {
    cudaMemPrefetchAsync(ptr, bytes, location, flags, stream)
}

/// [`cudaStreamAttachMemAsync`] of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaStreamAttachMemAsync_ptsz(
    stream: *mut c_void,
    ptr: *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> cudaError_t {
    cudaStreamAttachMemAsync(stream, ptr, bytes, flags)
}
