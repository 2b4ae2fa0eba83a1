//! The entry points of programs built with `--default-stream per-thread`: `*_ptsz` functions
//! take a stream in which NULL means the calling thread's default stream; `*_ptds` functions
//! are the synchronous ones, which complete before returning either way and so share the
//! plain functions' code.

use std::ffi::{c_int, c_uint, c_void};

use crate::errors::cudaError_t;
use crate::launch::per_thread_default as pt;
use crate::streams::{HostFn, StreamCallback};
use crate::{copy, launch, mem_pool, memory, stream_attributes, streams, symbols};

/// `cudaMemcpyAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemcpyAsync_ptsz(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    copy::cudaMemcpyAsync(dst, src, bytes, kind, pt(stream))
}

/// `cudaMemsetAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemsetAsync_ptsz(
    ptr: *mut c_void,
    value: c_int,
    bytes: usize,
    stream: *mut c_void,
) -> cudaError_t {
    memory::cudaMemsetAsync(ptr, value, bytes, pt(stream))
}

/// `cudaMemcpy` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemcpy_ptds(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: c_int,
) -> cudaError_t {
    copy::cudaMemcpy(dst, src, bytes, kind)
}

/// `cudaMemset` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemset_ptds(ptr: *mut c_void, value: c_int, bytes: usize) -> cudaError_t {
    memory::cudaMemset(ptr, value, bytes)
}

/// `cudaMemcpy2D` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemcpy2D_ptds(
    dst: *mut c_void,
    dst_pitch: usize,
    src: *const c_void,
    src_pitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> cudaError_t {
    copy::cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width, height, kind)
}

/// `cudaMemcpy2DAsync` with the per-thread default stream.
#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "C" fn cudaMemcpy2DAsync_ptsz(
    dst: *mut c_void,
    dst_pitch: usize,
    src: *const c_void,
    src_pitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    copy::cudaMemcpy2DAsync(
        dst,
        dst_pitch,
        src,
        src_pitch,
        width,
        height,
        kind,
        pt(stream),
    )
}

/// `cudaMemcpyToSymbol` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbol_ptds(
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    symbols::cudaMemcpyToSymbol(symbol, src, bytes, offset, kind)
}

/// `cudaMemcpyFromSymbol` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbol_ptds(
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
) -> cudaError_t {
    symbols::cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind)
}

/// `cudaMemcpyToSymbolAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemcpyToSymbolAsync_ptsz(
    symbol: *const c_void,
    src: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    symbols::cudaMemcpyToSymbolAsync(symbol, src, bytes, offset, kind, pt(stream))
}

/// `cudaMemcpyFromSymbolAsync` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaMemcpyFromSymbolAsync_ptsz(
    dst: *mut c_void,
    symbol: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    stream: *mut c_void,
) -> cudaError_t {
    symbols::cudaMemcpyFromSymbolAsync(dst, symbol, bytes, offset, kind, pt(stream))
}

/// `cudaStreamSynchronize` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaStreamSynchronize_ptsz(stream: *mut c_void) -> cudaError_t {
    streams::cudaStreamSynchronize(pt(stream))
}

/// `cudaStreamQuery` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaStreamQuery_ptsz(stream: *mut c_void) -> cudaError_t {
    streams::cudaStreamQuery(pt(stream))
}

/// `cudaStreamWaitEvent` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaStreamWaitEvent_ptsz(
    stream: *mut c_void,
    event: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    streams::cudaStreamWaitEvent(pt(stream), event, flags)
}

/// `cudaEventRecord` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaEventRecord_ptsz(event: *mut c_void, stream: *mut c_void) -> cudaError_t {
    streams::cudaEventRecord(event, pt(stream))
}

/// `cudaLaunchHostFunc` with the per-thread default stream.
///
/// # Safety
/// As `cudaLaunchHostFunc`.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchHostFunc_ptsz(
    stream: *mut c_void,
    host_fn: HostFn,
    user_data: *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { streams::cudaLaunchHostFunc(pt(stream), host_fn, user_data) }
}

/// `cudaStreamAddCallback` with the per-thread default stream.
///
/// # Safety
/// As `cudaStreamAddCallback`.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamAddCallback_ptsz(
    stream: *mut c_void,
    callback: StreamCallback,
    user_data: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { streams::cudaStreamAddCallback(pt(stream), callback, user_data, flags) }
}

/// `cudaLaunchCooperativeKernel` with the per-thread default stream.
///
/// # Safety
/// As `cudaLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel_ptsz(
    func: *const c_void,
    grid: crate::abi::Dim3,
    block: crate::abi::Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { launch::cudaLaunchCooperativeKernel(func, grid, block, args, shared, pt(stream)) }
}

/// `cudaMallocAsync` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMallocAsync_ptsz(
    ptr: *mut *mut c_void,
    size: usize,
    stream: *mut c_void,
) -> cudaError_t {
    mem_pool::cudaMallocAsync(ptr, size, pt(stream))
}

/// `cudaMallocFromPoolAsync` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaMallocFromPoolAsync_ptsz(
    ptr: *mut *mut c_void,
    size: usize,
    pool: *mut c_void,
    stream: *mut c_void,
) -> cudaError_t {
    mem_pool::cudaMallocFromPoolAsync(ptr, size, pool, pt(stream))
}

/// `cudaFreeAsync` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaFreeAsync_ptsz(ptr: *mut c_void, stream: *mut c_void) -> cudaError_t {
    mem_pool::cudaFreeAsync(ptr, pt(stream))
}

/// [`streams::cudaStreamGetPriority`] for `--default-stream per-thread` programs.
#[no_mangle]
pub extern "C" fn cudaStreamGetPriority_ptsz(
    stream: *mut c_void,
    priority: *mut c_int,
) -> cudaError_t {
    stream_attributes::cudaStreamGetPriority(pt(stream), priority)
}
