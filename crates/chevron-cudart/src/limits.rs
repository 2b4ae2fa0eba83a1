//! Configuration calls programs make in passing: device limits, cache and shared-memory
//! preferences, peer access, stream priorities, pitched allocations.
//! Preferences chevron's devices have no use for are accepted and change nothing.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_DEVICE, INVALID_VALUE, MEMORY_ALLOCATION,
    PEER_ACCESS_NOT_ENABLED,
};
use crate::memory::store;
use crate::state;

/// `cudaLimitDevRuntimePendingLaunchCount`.
const LIMIT_PENDING_LAUNCH_COUNT: c_int = 4;

/// `cudaLimitPrintfFifoSize`, `cudaLimitMallocHeapSize` and the stack size: what the CPU
/// device reports for each `cudaLimit`, by value. `cudaLimitDevRuntimeSyncDepth` is absent:
/// the device runtime of compute capability 9.0, which the CPU device implements, has no
/// device-side synchronisation (an H200 answers `cudaErrorUnsupportedLimit` too).
fn limit_value(limit: c_int) -> Option<usize> {
    use chevron_ptx::interp::device_runtime::pending_launch_limit;
    match limit {
        0 => Some(1024),    // cudaLimitStackSize
        1 => Some(1 << 20), // cudaLimitPrintfFifoSize
        2 => Some(8 << 20), // cudaLimitMallocHeapSize
        LIMIT_PENDING_LAUNCH_COUNT => Some(pending_launch_limit() as usize),
        5 => Some(0), // max L2 fetch granularity
        6 => Some(0), // persisting L2 cache size
        _ => None,
    }
}

/// The error for a limit the CPU device does not have: `cudaErrorUnsupportedLimit` for the
/// sync depth, `cudaErrorInvalidValue` for a value that is no `cudaLimit`.
fn unknown_limit(limit: c_int) -> CudaError {
    const SYNC_DEPTH: c_int = 3;
    const UNSUPPORTED_LIMIT: c_int = 215;
    if limit == SYNC_DEPTH {
        CudaError::new(UNSUPPORTED_LIMIT, "cudaLimitDevRuntimeSyncDepth")
    } else {
        CudaError::new(INVALID_VALUE, format!("cudaLimit {limit}"))
    }
}

/// Sets a limit of the current device: on a GPU the driver's (`cuCtxSetLimit`: a deeper stack,
/// a bigger printf FIFO or device heap take effect for its kernels); the CPU device accepts the
/// limits it knows (it has no fixed FIFO, heap or stack to resize) and keeps the pending
/// launch count of device-side launches (`chevron_ptx::interp::device_runtime`, one for the
/// process).
#[no_mangle]
pub extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> cudaError_t {
    guard("cudaDeviceSetLimit", || {
        let device = &state::current()?.device;
        if let Some(set) = device.set_driver_limit(limit, value) {
            return Ok(set?);
        }
        limit_value(limit).ok_or_else(|| unknown_limit(limit))?;
        if limit == LIMIT_PENDING_LAUNCH_COUNT {
            let count = u32::try_from(value).unwrap_or(u32::MAX);
            chevron_ptx::interp::device_runtime::set_pending_launch_limit(count);
        }
        Ok(())
    })
}

/// A limit of the current device: a GPU's driver's (`cuCtxGetLimit`), the CPU device's own.
#[no_mangle]
pub extern "C" fn cudaDeviceGetLimit(value: *mut usize, limit: c_int) -> cudaError_t {
    guard("cudaDeviceGetLimit", || {
        let device = &state::current()?.device;
        let answer = match device.driver_limit(limit) {
            Some(answer) => answer?,
            None => limit_value(limit).ok_or_else(|| unknown_limit(limit))?,
        };
        store(value, answer, "pValue")
    })
}

/// The current device's cache preference (`cudaFuncCache`), by device ordinal: kept and read
/// back, changing nothing else (chevron's devices size no L1 from it).
static CACHE_CONFIG: Mutex<BTreeMap<usize, c_int>> = Mutex::new(BTreeMap::new());

/// `cudaSharedMemBankSizeFourByte`: the bank size of every device since compute capability 5.
const FOUR_BYTE_BANKS: c_int = 1;

/// Keeps the current device's cache preference (`cudaFuncCachePreferNone` … `PreferEqual`).
#[no_mangle]
pub extern "C" fn cudaDeviceSetCacheConfig(config: c_int) -> cudaError_t {
    guard("cudaDeviceSetCacheConfig", || {
        check_cache_config(config)?;
        let ordinal = state::current_ordinal();
        state::current()?;
        state::lock(&CACHE_CONFIG).insert(ordinal, config);
        Ok(())
    })
}

/// The current device's cache preference: `cudaFuncCachePreferNone` until one is set.
#[no_mangle]
pub extern "C" fn cudaDeviceGetCacheConfig(config: *mut c_int) -> cudaError_t {
    guard("cudaDeviceGetCacheConfig", || {
        let ordinal = state::current_ordinal();
        state::current()?;
        let value = state::lock(&CACHE_CONFIG)
            .get(&ordinal)
            .copied()
            .unwrap_or(0);
        store(config, value, "pCacheConfig")
    })
}

/// The shared-memory bank size: four bytes on every device chevron runs.
#[no_mangle]
pub extern "C" fn cudaDeviceGetSharedMemConfig(config: *mut c_int) -> cudaError_t {
    guard("cudaDeviceGetSharedMemConfig", || {
        state::current()?;
        store(config, FOUR_BYTE_BANKS, "pConfig")
    })
}

/// Accepts a bank-size preference (`cudaSharedMemBankSizeDefault`, `FourByte`, `EightByte`),
/// which changes nothing: devices since compute capability 5 have fixed four-byte banks.
#[no_mangle]
pub extern "C" fn cudaDeviceSetSharedMemConfig(config: c_int) -> cudaError_t {
    guard("cudaDeviceSetSharedMemConfig", || {
        if !(0..=2).contains(&config) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("cudaSharedMemConfig {config}"),
            ));
        }
        state::current().map(drop)
    })
}

/// Fails with `cudaErrorInvalidValue` unless `config` is a `cudaFuncCache` (0 to 3).
fn check_cache_config(config: c_int) -> CudaResult {
    if (0..=3).contains(&config) {
        Ok(())
    } else {
        Err(CudaError::new(
            INVALID_VALUE,
            format!("cudaFuncCache {config} (0 to 3)"),
        ))
    }
}

/// Accepts a kernel's cache preference.
#[no_mangle]
pub extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, config: c_int) -> cudaError_t {
    guard("cudaFuncSetCacheConfig", || {
        crate::registry::kernel_entry(func)?;
        check_cache_config(config)
    })
}

/// Whether `device` can address `peer`'s memory directly: never on chevron's devices (each
/// CPU device has its own memory, and chevron enables no peer mappings between GPUs); copies
/// between devices work all the same.
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

/// Refuses peer access as CUDA does where `cudaDeviceCanAccessPeer` says 0:
/// `cudaErrorInvalidDevice` (the same device: `cudaErrorInvalidDevice` too).
#[no_mangle]
pub extern "C" fn cudaDeviceEnablePeerAccess(peer: c_int, flags: c_uint) -> cudaError_t {
    guard("cudaDeviceEnablePeerAccess", || {
        if flags != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags} (must be 0)"),
            ));
        }
        state::current()?;
        state::device(usize::try_from(peer).unwrap_or(usize::MAX))?;
        Err(CudaError::new(
            INVALID_DEVICE,
            format!(
                "device {} cannot address device {peer}'s memory (cudaDeviceCanAccessPeer \
                 says 0); cudaMemcpyPeer copies between them",
                state::current_ordinal()
            ),
        ))
    })
}

/// Peer access is never enabled: `cudaErrorPeerAccessNotEnabled`.
#[no_mangle]
pub extern "C" fn cudaDeviceDisablePeerAccess(peer: c_int) -> cudaError_t {
    guard("cudaDeviceDisablePeerAccess", || {
        state::device(usize::try_from(peer).unwrap_or(usize::MAX))?;
        Err(CudaError::new(
            PEER_ACCESS_NOT_ENABLED,
            format!("peer access to device {peer} was never enabled"),
        ))
    })
}

/// Stream priorities: one level (least and greatest 0) on the CPU device, whose streams all
/// run alike; on a GPU, the driver's range.
#[no_mangle]
pub extern "C" fn cudaDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> cudaError_t {
    guard("cudaDeviceGetStreamPriorityRange", || {
        let (least_value, greatest_value) = state::current()?.device.stream_priority_range()?;
        if !least.is_null() {
            store(least, least_value, "leastPriority")?;
        }
        if !greatest.is_null() {
            store(greatest, greatest_value, "greatestPriority")?;
        }
        Ok(())
    })
}

/// The device flags: none set.
#[no_mangle]
pub extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> cudaError_t {
    guard("cudaGetDeviceFlags", || store(flags, 0, "flags"))
}

/// The pitch of a row of `width` bytes: padded to 256 bytes; `None` when it does not fit in
/// the address space.
fn padded_pitch(width: usize) -> Option<usize> {
    width.max(1).div_ceil(256).checked_mul(256)
}

/// A pitched allocation: rows padded to 256 bytes. A size the address space cannot hold is
/// `cudaErrorMemoryAllocation`, as CUDA reports it.
#[no_mangle]
pub extern "C" fn cudaMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> cudaError_t {
    guard("cudaMallocPitch", || {
        if ptr.is_null() || pitch.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "devPtr or pitch is NULL"));
        }
        let too_large = || {
            CudaError::new(
                MEMORY_ALLOCATION,
                format!("{width} x {height} bytes do not fit in the address space"),
            )
        };
        let padded = padded_pitch(width).ok_or_else(too_large)?;
        let bytes = padded.checked_mul(height.max(1)).ok_or_else(too_large)?;
        match crate::memory::cudaMalloc(ptr, bytes) {
            0 => store(pitch, padded, "pitch"),
            code => Err(CudaError::new(code, "")),
        }
    })
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

/// The end of the range `[ptr, ptr + bytes)`, cut at the end of its managed allocation.
fn range_end(ptr: *const c_void, bytes: usize) -> usize {
    let end = (ptr as usize).saturating_add(bytes);
    crate::mirror::range_of(ptr as usize).map_or(end, |(base, len)| end.min(base + len))
}

/// A location as the hints keep it (`cudaCpuDeviceId` as the device id of the host), checked:
/// a device location names a device.
fn hinted_location(location: MemLocation) -> crate::errors::CudaResult<(c_int, c_int)> {
    match location.kind {
        // cudaMemLocationTypeDevice.
        1 => {
            state::device(usize::try_from(location.id).unwrap_or(usize::MAX))?;
            Ok((1, location.id))
        }
        // cudaMemLocationTypeHost, HostNuma, HostNumaCurrent.
        2 => Ok((2, -1)),
        3 | 4 => Ok((location.kind, location.id)),
        kind => Err(CudaError::new(
            INVALID_VALUE,
            format!("{kind} is not a cudaMemLocationType"),
        )),
    }
}

/// A prefetch hint for managed memory: kept as the range's last prefetch location
/// (`cudaMemRangeGetAttribute`); the data move at launches and synchronizing calls.
#[no_mangle]
pub extern "C" fn cudaMemPrefetchAsync(
    ptr: *const c_void,
    bytes: usize,
    location: MemLocation,
    flags: c_uint,
    stream: *mut c_void,
) -> cudaError_t {
    let _ = (flags, stream);
    guard("cudaMemPrefetchAsync", || {
        check_managed(ptr)?;
        let location = hinted_location(location)?;
        let end = range_end(ptr, bytes);
        crate::managed_hints::apply(ptr as usize, end, |h| h.last_prefetch = Some(location));
        Ok(())
    })
}

/// An advice for managed memory: kept for `cudaMemRangeGetAttribute` (chevron's devices keep
/// managed memory coherent without it).
#[no_mangle]
pub extern "C" fn cudaMemAdvise(
    ptr: *const c_void,
    bytes: usize,
    advice: c_int,
    location: MemLocation,
) -> cudaError_t {
    guard("cudaMemAdvise", || {
        check_managed(ptr)?;
        if !(1..=6).contains(&advice) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("{advice} is not a cudaMemoryAdvise"),
            ));
        }
        let end = range_end(ptr, bytes);
        let apply = |change: &dyn Fn(&mut crate::managed_hints::Hints)| {
            crate::managed_hints::apply(ptr as usize, end, change)
        };
        match advice {
            1 => apply(&|h| h.read_mostly = true),
            2 => apply(&|h| h.read_mostly = false),
            4 => apply(&|h| h.preferred = None),
            _ => {
                let location = hinted_location(location)?;
                match advice {
                    3 => apply(&|h| h.preferred = Some(location)),
                    5 => apply(&|h| {
                        h.accessed_by.insert(location.1);
                    }),
                    _ => apply(&|h| {
                        h.accessed_by.remove(&location.1);
                    }),
                }
            }
        }
        Ok(())
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pitch_that_does_not_fit_is_none_never_zero() {
        assert_eq!(padded_pitch(0), Some(256));
        assert_eq!(padded_pitch(100), Some(256));
        assert_eq!(padded_pitch(257), Some(512));
        assert_eq!(padded_pitch(usize::MAX), None);
        assert_eq!(padded_pitch(usize::MAX - 100), None);
        assert_eq!(padded_pitch(usize::MAX - 4096), Some(usize::MAX - 4095));
    }
}
