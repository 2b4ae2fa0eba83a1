//! The driver's linear copies that name arrays by a byte offset or memory by its context:
//! `cuMemcpyHtoA`, `cuMemcpyAtoH`, `cuMemcpyAtoA`, `cuMemcpyAtoD`, `cuMemcpyDtoA` (and the
//! asynchronous host forms), and `cuMemcpyPeer`/`cuMemcpyPeerAsync`. Each is the runtime's
//! function of the same meaning: an array, addressed as one row as the driver does, and its
//! byte offset become the runtime's array and byte column, a context its device's ordinal.

use std::ffi::{c_int, c_void};

use cudart::array_memcpy::{
    cudaMemcpyArrayToArray, cudaMemcpyFromArray, cudaMemcpyFromArrayAsync, cudaMemcpyToArray,
    cudaMemcpyToArrayAsync,
};
use cudart::copy::{cudaMemcpyPeer, cudaMemcpyPeerAsync};

use crate::context::lookup;
use crate::forward::through;
use crate::memory::CUdeviceptr;
use crate::result::{entry, CUresult, DriverError, DriverResult, INVALID_HANDLE, INVALID_VALUE};

/// `cudaMemcpyKind` values the runtime functions are given (they find each side's kind
/// themselves; the value only has to be a valid one).
const HOST_TO_DEVICE: c_int = 1;
const DEVICE_TO_HOST: c_int = 2;
const DEVICE_TO_DEVICE: c_int = 3;

/// The extent and row length in bytes of the live array `array`.
fn extent(array: *mut c_void) -> DriverResult<([u64; 3], u64)> {
    cudart::textures::with_live_array(array as u64, |a| (a.desc().extent, a.row_pitch()))
        .ok_or_else(|| DriverError::new(INVALID_HANDLE, format!("{array:p} is not a live CUarray")))
}

/// The (byte column, row) of byte `offset` of array `array`: (offset, 0). The driver's linear
/// copies address an array as one row: a 2D or 3D array's copy must lie within its first row
/// (NVIDIA's driver, measured on an H200: 8 bytes into a 16x4 byte array are copied, 64 bytes
/// from its start are `CUDA_ERROR_INVALID_VALUE`).
fn position(
    array: *mut c_void,
    (extent, row): ([u64; 3], u64),
    offset: usize,
    bytes: usize,
) -> DriverResult<(usize, usize)> {
    let end = (offset as u64).checked_add(bytes as u64);
    if (extent[1] != 0 || extent[2] != 0) && end.is_none_or(|end| end > row) {
        return Err(DriverError::new(
            INVALID_VALUE,
            format!(
                "{bytes} bytes from byte {offset} leave the first row ({row} bytes) of the \
                 {}x{}x{} array {array:p}: linear copies address one row",
                extent[0], extent[1], extent[2]
            ),
        ));
    }
    Ok((offset, 0))
}

/// [`position`] of a stream-ordered copy: every handle (the array, then `stream`) is checked
/// before the array's shape, so a forged handle is `CUDA_ERROR_INVALID_HANDLE` whatever else
/// is wrong.
fn position_on(
    array: *mut c_void,
    offset: usize,
    bytes: usize,
    stream: *mut c_void,
) -> DriverResult<(usize, usize)> {
    let extent = extent(array)?;
    cudart::state::submit_stream(stream)?;
    position(array, extent, offset, bytes)
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
        let (x, y) = position(array, extent(array)?, offset, bytes)?;
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
        let (x, y) = position_on(array, offset, bytes, stream)?;
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
        let (x, y) = position(array, extent(array)?, offset, bytes)?;
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
        let (x, y) = position_on(array, offset, bytes, stream)?;
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
        let (x, y) = position(array, extent(array)?, offset, bytes)?;
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
        let (x, y) = position(array, extent(array)?, offset, bytes)?;
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
        let (dst_extent, src_extent) = (extent(dst)?, extent(src)?);
        let (xd, yd) = position(dst, dst_extent, dst_offset, bytes)?;
        let (xs, ys) = position(src, src_extent, src_offset, bytes)?;
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
