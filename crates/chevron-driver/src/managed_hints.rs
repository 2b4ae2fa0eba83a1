//! Hints about managed memory through the driver API: `cuMemAdvise` and `cuMemPrefetchAsync`
//! (`_v2`, with a `CUmemLocation`, the per-thread stream's forms of it and of the CUDA 11 form
//! that names a `CUdevice`), and the queries of what they set (`cuMemRangeGetAttribute(s)`) and
//! of pinned flags (`cuMemHostGetFlags`): the runtime's functions
//! (`cudart::limits`): chevron's devices keep managed memory coherent without them, so each
//! checks its range and otherwise changes nothing.

use std::ffi::{c_int, c_uint, c_void};

use cudart::launch::per_thread_default;
use cudart::limits::{self, MemLocation};

use crate::memory::CUdeviceptr;

forward! {
    /// Advice about a managed range (checked, then a hint).
    cuMemAdvise_v2 => advise, (ptr: CUdeviceptr, bytes: usize, advice: c_int, location: MemLocation);
    /// Prefetches a managed range to `location`, ordered on `stream` (checked, then a hint).
    cuMemPrefetchAsync_v2 => prefetch,
        (ptr: CUdeviceptr, bytes: usize, location: MemLocation, flags: c_uint, stream: *mut c_void);
    /// [`cuMemPrefetchAsync_v2`] with the per-thread default stream for NULL.
    cuMemPrefetchAsync_v2_ptsz => prefetch_per_thread,
        (ptr: CUdeviceptr, bytes: usize, location: MemLocation, flags: c_uint, stream: *mut c_void);
    /// The CUDA 11 form (a `CUdevice`, `CU_DEVICE_CPU` for the host) with the per-thread
    /// default stream for NULL, as `cuda.h` declares it.
    cuMemPrefetchAsync_ptsz => prefetch_to_device_per_thread,
        (ptr: CUdeviceptr, bytes: usize, device: c_int, stream: *mut c_void);
    /// One attribute of a managed range: the hints every byte of it has.
    cuMemRangeGetAttribute => range_attribute,
        (data: *mut c_void, size: usize, attribute: c_int, ptr: CUdeviceptr, count: usize);
    /// Several attributes of a managed range.
    cuMemRangeGetAttributes => range_attributes, (data: *mut *mut c_void, sizes: *const usize,
        attributes: *const c_int, count_attributes: usize, ptr: CUdeviceptr, count: usize);
    /// The flags of a pinned allocation (`CU_MEMHOSTALLOC_*` are `cudaHostAlloc*`).
    cuMemHostGetFlags => cudart::memory_queries::cudaHostGetFlags,
        (flags: *mut c_uint, host: *mut c_void);
}

/// # Safety
/// As `cudaMemRangeGetAttribute`.
unsafe fn range_attribute(
    data: *mut c_void,
    size: usize,
    attribute: c_int,
    ptr: CUdeviceptr,
    count: usize,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe {
        cudart::memory_queries::cudaMemRangeGetAttribute(
            data,
            size,
            attribute,
            ptr as *const c_void,
            count,
        )
    }
}

/// # Safety
/// As `cudaMemRangeGetAttributes`.
unsafe fn range_attributes(
    data: *mut *mut c_void,
    sizes: *const usize,
    attributes: *const c_int,
    count_attributes: usize,
    ptr: CUdeviceptr,
    count: usize,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe {
        cudart::memory_queries::cudaMemRangeGetAttributes(
            data,
            sizes,
            attributes,
            count_attributes,
            ptr as *const c_void,
            count,
        )
    }
}

/// `CU_DEVICE_CPU`: the host, where a `CUdevice` names a destination.
const DEVICE_CPU: c_int = -1;

fn prefetch_to_device_per_thread(
    ptr: CUdeviceptr,
    bytes: usize,
    device: c_int,
    stream: *mut c_void,
) -> c_int {
    // cudaMemLocationTypeHost (2) for CU_DEVICE_CPU, else cudaMemLocationTypeDevice (1).
    let location = match device {
        DEVICE_CPU => MemLocation { kind: 2, id: 0 },
        ordinal => MemLocation {
            kind: 1,
            id: ordinal,
        },
    };
    prefetch_per_thread(ptr, bytes, location, 0, stream)
}

fn advise(ptr: CUdeviceptr, bytes: usize, advice: c_int, location: MemLocation) -> c_int {
    limits::cudaMemAdvise(ptr as *const c_void, bytes, advice, location)
}

fn prefetch(
    ptr: CUdeviceptr,
    bytes: usize,
    location: MemLocation,
    flags: c_uint,
    stream: *mut c_void,
) -> c_int {
    limits::cudaMemPrefetchAsync(ptr as *const c_void, bytes, location, flags, stream)
}

fn prefetch_per_thread(
    ptr: CUdeviceptr,
    bytes: usize,
    location: MemLocation,
    flags: c_uint,
    stream: *mut c_void,
) -> c_int {
    prefetch(ptr, bytes, location, flags, per_thread_default(stream))
}
