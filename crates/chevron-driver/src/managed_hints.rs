//! Hints about managed memory through the driver API: `cuMemAdvise` and `cuMemPrefetchAsync`
//! (`_v2`, with a `CUmemLocation`, and the per-thread stream's form), the runtime's functions
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
    cuMemPrefetchAsync_ptsz => prefetch_per_thread,
        (ptr: CUdeviceptr, bytes: usize, location: MemLocation, flags: c_uint, stream: *mut c_void);
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
