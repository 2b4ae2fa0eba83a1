//! The driver's linear copies that name arrays by a byte offset or memory by its context:
//! `cuMemcpyHtoA`, `cuMemcpyAtoH`, `cuMemcpyAtoA`, `cuMemcpyAtoD`, `cuMemcpyDtoA` (and the
//! asynchronous host forms), and `cuMemcpyPeer`/`cuMemcpyPeerAsync`. Each is the runtime's
//! function of the same meaning: an array's byte offset becomes the runtime's (byte column,
//! row) in the array's row-major order, a context its device's ordinal.

use std::ffi::{c_int, c_void};

use cudart::array_memcpy::{
    cudaMemcpyArrayToArray, cudaMemcpyFromArray, cudaMemcpyFromArrayAsync, cudaMemcpyToArray,
    cudaMemcpyToArrayAsync,
};
use cudart::copy::{cudaMemcpyPeer, cudaMemcpyPeerAsync};

use crate::context::lookup;
use crate::forward::through;
use crate::memory::CUdeviceptr;
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_HANDLE};

/// `cudaMemcpyKind` values the runtime functions are given (they find each side's kind
/// themselves; the value only has to be a valid one).
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;

/// The (byte column, row) of byte `offset` of array `array`, in its row-major order.
fn position(array: *mut c_void, offset: usize) -> DriverResult<(usize, usize)> {
    let row = cudart::textures::with_live_array(array as u64, |a| a.row_pitch() as usize)
        .ok_or_else(|| {
            DriverError::new(INVALID_HANDLE, format!("{array:p} is not a live CUarray"))
        })?;
    Ok((offset % row.max(1), offset / row.max(1)))
}

/// Host memory into an array from byte `offset`.
#[no_mangle]
pub extern "C" fn cuMemcpyHtoA_v2(
    array: *mut c_void,
    offset: usize,
    src: *const c_void,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyHtoA", || {
        let (x, y) = position(array, offset)?;
        through(|| cudaMemcpyToArray(array, x, y, src, bytes, HOST_TO_DEVICE))
    })
}

/// [`cuMemcpyHtoA_v2`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cuMemcpyHtoAAsync_v2(
    array: *mut c_void,
    offset: usize,
    src: *const c_void,
    bytes: usize,
    stream: *mut c_void,
) -> CUresult {
    entry("cuMemcpyHtoAAsync", || {
        let (x, y) = position(array, offset)?;
        through(|| cudaMemcpyToArrayAsync(array, x, y, src, bytes, HOST_TO_DEVICE, stream))
    })
}

/// An array from byte `offset` into host memory.
#[no_mangle]
pub extern "C" fn cuMemcpyAtoH_v2(
    dst: *mut c_void,
    array: *mut c_void,
    offset: usize,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyAtoH", || {
        let (x, y) = position(array, offset)?;
        through(|| cudaMemcpyFromArray(dst, array, x, y, bytes, DEVICE_TO_HOST))
    })
}

/// [`cuMemcpyAtoH_v2`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cuMemcpyAtoHAsync_v2(
    dst: *mut c_void,
    array: *mut c_void,
    offset: usize,
    bytes: usize,
    stream: *mut c_void,
) -> CUresult {
    entry("cuMemcpyAtoHAsync", || {
        let (x, y) = position(array, offset)?;
        through(|| cudaMemcpyFromArrayAsync(dst, array, x, y, bytes, DEVICE_TO_HOST, stream))
    })
}

/// An array from byte `offset` into device memory.
#[no_mangle]
pub extern "C" fn cuMemcpyAtoD_v2(
    dst: CUdeviceptr,
    array: *mut c_void,
    offset: usize,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyAtoD", || {
        let (x, y) = position(array, offset)?;
        let dst = dst as *mut c_void;
        through(|| cudaMemcpyFromArray(dst, array, x, y, bytes, DEVICE_TO_DEVICE))
    })
}

/// Device memory into an array from byte `offset`.
#[no_mangle]
pub extern "C" fn cuMemcpyDtoA_v2(
    array: *mut c_void,
    offset: usize,
    src: CUdeviceptr,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyDtoA", || {
        let (x, y) = position(array, offset)?;
        let src = src as *const c_void;
        through(|| cudaMemcpyToArray(array, x, y, src, bytes, DEVICE_TO_DEVICE))
    })
}

/// One array into another, each from its byte offset.
#[no_mangle]
pub extern "C" fn cuMemcpyAtoA_v2(
    dst: *mut c_void,
    dst_offset: usize,
    src: *mut c_void,
    src_offset: usize,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyAtoA", || {
        let (xd, yd) = position(dst, dst_offset)?;
        let (xs, ys) = position(src, src_offset)?;
        through(|| cudaMemcpyArrayToArray(dst, xd, yd, src, xs, ys, bytes, DEVICE_TO_DEVICE))
    })
}

/// Device memory of one context into another's, synchronously.
#[no_mangle]
pub extern "C" fn cuMemcpyPeer(
    dst: CUdeviceptr,
    dst_context: *mut c_void,
    src: CUdeviceptr,
    src_context: *mut c_void,
    bytes: usize,
) -> CUresult {
    entry("cuMemcpyPeer", || {
        let (to, from) = (lookup(dst_context)?.ordinal, lookup(src_context)?.ordinal);
        let (dst, src) = (dst as *mut c_void, src as *const c_void);
        through(|| cudaMemcpyPeer(dst, to as c_int, src, from as c_int, bytes))
    })
}

/// [`cuMemcpyPeer`] ordered on `stream`.
#[no_mangle]
pub extern "C" fn cuMemcpyPeerAsync(
    dst: CUdeviceptr,
    dst_context: *mut c_void,
    src: CUdeviceptr,
    src_context: *mut c_void,
    bytes: usize,
    stream: *mut c_void,
) -> CUresult {
    entry("cuMemcpyPeerAsync", || {
        let (to, from) = (lookup(dst_context)?.ordinal, lookup(src_context)?.ordinal);
        let (dst, src) = (dst as *mut c_void, src as *const c_void);
        through(|| cudaMemcpyPeerAsync(dst, to as c_int, src, from as c_int, bytes, stream))
    })
}
