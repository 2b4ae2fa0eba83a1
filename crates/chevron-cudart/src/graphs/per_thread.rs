//! The graph entry points of programs built with `--default-stream per-thread` (`*_ptsz`: NULL
//! names the calling thread's default stream), and `cudaGraphInstantiateWithParams`.

use std::ffi::{c_int, c_uint, c_ulonglong, c_void};

use super::capture::{
    cudaStreamBeginCapture, cudaStreamBeginCaptureToGraph, cudaStreamEndCapture,
    cudaStreamGetCaptureInfo, cudaStreamIsCapturing, cudaStreamUpdateCaptureDependencies,
};
use super::exec::{cudaGraphInstantiateWithFlags, cudaGraphLaunch, cudaGraphUpload};
use crate::errors::{cudaError_t, guard, CudaError, INVALID_VALUE};
use crate::launch::per_thread_default as pt;

/// `cudaGraphLaunch` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaGraphLaunch_ptsz(exec: *mut c_void, stream: *mut c_void) -> cudaError_t {
    cudaGraphLaunch(exec, pt(stream))
}

/// `cudaGraphUpload` with the per-thread default stream.
#[no_mangle]
pub extern "C" fn cudaGraphUpload_ptsz(exec: *mut c_void, stream: *mut c_void) -> cudaError_t {
    cudaGraphUpload(exec, pt(stream))
}

/// `cudaStreamBeginCapture` of a per-thread-default-stream program.
#[no_mangle]
pub extern "C" fn cudaStreamBeginCapture_ptsz(stream: *mut c_void, mode: c_int) -> cudaError_t {
    cudaStreamBeginCapture(pt(stream), mode)
}

/// `cudaStreamBeginCaptureToGraph` of a per-thread-default-stream program.
///
/// # Safety
/// As [`cudaStreamBeginCaptureToGraph`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamBeginCaptureToGraph_ptsz(
    stream: *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    mode: c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamBeginCaptureToGraph(pt(stream), graph, deps, edge_data, count, mode) }
}

/// `cudaStreamUpdateCaptureDependencies` of a per-thread-default-stream program.
///
/// # Safety
/// As [`cudaStreamUpdateCaptureDependencies`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamUpdateCaptureDependencies_ptsz(
    stream: *mut c_void,
    deps: *mut *mut c_void,
    edge_data: *const [u8; 8],
    count: usize,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamUpdateCaptureDependencies(pt(stream), deps, edge_data, count, flags) }
}

/// `cudaStreamEndCapture` of a per-thread-default-stream program.
///
/// # Safety
/// As [`cudaStreamEndCapture`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamEndCapture_ptsz(
    stream: *mut c_void,
    graph: *mut *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamEndCapture(pt(stream), graph) }
}

/// `cudaStreamIsCapturing` of a per-thread-default-stream program.
///
/// # Safety
/// As [`cudaStreamIsCapturing`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamIsCapturing_ptsz(
    stream: *mut c_void,
    status: *mut c_int,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamIsCapturing(pt(stream), status) }
}

/// `cudaStreamGetCaptureInfo` of a per-thread-default-stream program.
///
/// # Safety
/// As [`cudaStreamGetCaptureInfo`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetCaptureInfo_ptsz(
    stream: *mut c_void,
    status_out: *mut c_int,
    id_out: *mut c_ulonglong,
    graph_out: *mut *mut c_void,
    deps_out: *mut *const *mut c_void,
    edge_data_out: *mut *const c_void,
    count_out: *mut usize,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe {
        cudaStreamGetCaptureInfo(
            pt(stream),
            status_out,
            id_out,
            graph_out,
            deps_out,
            edge_data_out,
            count_out,
        )
    }
}

/// `cudaGraphInstantiateParams`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaGraphInstantiateParams {
    pub flags: c_ulonglong,
    pub uploadStream: *mut c_void,
    pub errNode_out: *mut c_void,
    pub result_out: c_int,
}

/// `cudaGraphInstantiateSuccess`, `cudaGraphInstantiateError`.
const INSTANTIATE_SUCCESS: c_int = 0;
const INSTANTIATE_ERROR: c_int = 1;

/// Instantiates `graph` with `params`' flags (an upload stream is checked, as
/// `cudaGraphUpload` does), writing the result into `params`.
///
/// # Safety
/// `params` is NULL or valid for reads and writes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphInstantiateWithParams(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    params: *mut cudaGraphInstantiateParams,
) -> cudaError_t {
    // SAFETY: NULL or valid (caller).
    let Some(params) = (unsafe { params.as_mut() }) else {
        return guard("cudaGraphInstantiateWithParams", || {
            Err(CudaError::new(INVALID_VALUE, "instantiateParams is NULL"))
        });
    };
    let mut code = cudaGraphInstantiateWithFlags(exec, graph, params.flags);
    if code == 0 && !params.uploadStream.is_null() {
        // SAFETY: `exec` was written by the successful instantiation.
        code = cudaGraphUpload(unsafe { exec.read() }, params.uploadStream);
    }
    params.errNode_out = std::ptr::null_mut();
    params.result_out = if code == 0 {
        INSTANTIATE_SUCCESS
    } else {
        INSTANTIATE_ERROR
    };
    code
}

/// `cudaGraphInstantiateWithParams` with the per-thread default stream as upload stream.
///
/// # Safety
/// As [`cudaGraphInstantiateWithParams`].
#[no_mangle]
pub unsafe extern "C" fn cudaGraphInstantiateWithParams_ptsz(
    exec: *mut *mut c_void,
    graph: *mut c_void,
    params: *mut cudaGraphInstantiateParams,
) -> cudaError_t {
    // SAFETY: NULL or valid (caller).
    if let Some(params) = unsafe { params.as_mut() } {
        if params.uploadStream.is_null() {
            params.uploadStream = pt(std::ptr::null_mut());
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { cudaGraphInstantiateWithParams(exec, graph, params) }
}
