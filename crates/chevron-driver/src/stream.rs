//! Streams, events, stream callbacks and host functions: a `CUstream` is a `cudaStream_t` and
//! a `CUevent` a `cudaEvent_t` (the runtime's handles, in its tables), so either API may use a
//! handle the other made.

use std::ffi::{c_float, c_int, c_uint, c_void};

use cudart::streams as rt;

use crate::memory::enter;
use crate::result::{entry, runtime, store, CUresult, DriverResult};

fn in_context(call: impl FnOnce() -> c_int) -> DriverResult {
    enter()?;
    runtime(call())
}

/// Creates a stream (`CU_STREAM_NON_BLOCKING` = 1, as the runtime's flag).
#[no_mangle]
pub extern "C" fn cuStreamCreate(out: *mut *mut c_void, flags: c_uint) -> CUresult {
    entry("cuStreamCreate", || {
        in_context(|| rt::cudaStreamCreateWithFlags(out, flags))
    })
}

/// Creates a stream with a priority (chevron's streams have one priority).
#[no_mangle]
pub extern "C" fn cuStreamCreateWithPriority(
    out: *mut *mut c_void,
    flags: c_uint,
    priority: c_int,
) -> CUresult {
    entry("cuStreamCreateWithPriority", || {
        in_context(|| rt::cudaStreamCreateWithPriority(out, flags, priority))
    })
}

/// Destroys a stream once its work is done.
#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(stream: *mut c_void) -> CUresult {
    entry("cuStreamDestroy", || {
        in_context(|| rt::cudaStreamDestroy(stream))
    })
}

/// Waits for a stream.
#[no_mangle]
pub extern "C" fn cuStreamSynchronize(stream: *mut c_void) -> CUresult {
    entry("cuStreamSynchronize", || {
        in_context(|| rt::cudaStreamSynchronize(stream))
    })
}

/// Whether a stream's work is done (`CUDA_ERROR_NOT_READY` if not).
#[no_mangle]
pub extern "C" fn cuStreamQuery(stream: *mut c_void) -> CUresult {
    entry("cuStreamQuery", || {
        in_context(|| rt::cudaStreamQuery(stream))
    })
}

/// Makes a stream's later work wait for an event.
#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(
    stream: *mut c_void,
    event: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry("cuStreamWaitEvent", || {
        in_context(|| rt::cudaStreamWaitEvent(stream, event, flags))
    })
}

/// Calls `callback(stream, status, data)` on a host thread once the stream's work so far is
/// done.
///
/// # Safety
/// `callback` is callable with `data` from another thread.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(
    stream: *mut c_void,
    callback: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut c_void)>,
    data: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry("cuStreamAddCallback", || {
        // SAFETY: forwarded from the caller.
        in_context(|| unsafe { rt::cudaStreamAddCallback(stream, callback, data, flags) })
    })
}

/// Calls `function(data)` in stream order.
///
/// # Safety
/// `function` is callable with `data` from another thread.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    stream: *mut c_void,
    function: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CUresult {
    entry("cuLaunchHostFunc", || {
        // SAFETY: forwarded from the caller.
        in_context(|| unsafe { rt::cudaLaunchHostFunc(stream, function, data) })
    })
}

/// A stream's priority (the runtime's: what it was created with, clamped).
#[no_mangle]
pub extern "C" fn cuStreamGetPriority(stream: *mut c_void, priority: *mut c_int) -> CUresult {
    entry("cuStreamGetPriority", || {
        in_context(|| cudart::stream_attributes::cudaStreamGetPriority(stream, priority))
    })
}

/// The stream priority range of the current context's device (the runtime's).
#[no_mangle]
pub extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    entry("cuCtxGetStreamPriorityRange", || {
        in_context(|| cudart::limits::cudaDeviceGetStreamPriorityRange(least, greatest))
    })
}

/// Creates an event (`CU_EVENT_DISABLE_TIMING` = 2, as the runtime's flag).
#[no_mangle]
pub extern "C" fn cuEventCreate(out: *mut *mut c_void, flags: c_uint) -> CUresult {
    entry("cuEventCreate", || {
        in_context(|| rt::cudaEventCreateWithFlags(out, flags))
    })
}

/// Records an event on a stream.
#[no_mangle]
pub extern "C" fn cuEventRecord(event: *mut c_void, stream: *mut c_void) -> CUresult {
    entry("cuEventRecord", || {
        in_context(|| rt::cudaEventRecord(event, stream))
    })
}

/// Waits for an event.
#[no_mangle]
pub extern "C" fn cuEventSynchronize(event: *mut c_void) -> CUresult {
    entry("cuEventSynchronize", || {
        in_context(|| rt::cudaEventSynchronize(event))
    })
}

/// Whether an event's work is done.
#[no_mangle]
pub extern "C" fn cuEventQuery(event: *mut c_void) -> CUresult {
    entry("cuEventQuery", || in_context(|| rt::cudaEventQuery(event)))
}

/// Destroys an event.
#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(event: *mut c_void) -> CUresult {
    entry("cuEventDestroy", || {
        in_context(|| rt::cudaEventDestroy(event))
    })
}

/// Milliseconds between two recorded events.
#[no_mangle]
pub extern "C" fn cuEventElapsedTime_v2(
    ms: *mut c_float,
    start: *mut c_void,
    end: *mut c_void,
) -> CUresult {
    entry("cuEventElapsedTime", || {
        in_context(|| rt::cudaEventElapsedTime(ms, start, end))
    })
}

/// As [`cuEventElapsedTime_v2`] (the CUDA 12 name).
#[no_mangle]
pub extern "C" fn cuEventElapsedTime(
    ms: *mut c_float,
    start: *mut c_void,
    end: *mut c_void,
) -> CUresult {
    cuEventElapsedTime_v2(ms, start, end)
}

/// Whether `stream` captures (`CUstreamCaptureStatus`: 0 no, 1 yes, 2 invalidated), as the
/// runtime's `cudaStreamIsCapturing` (one stream, one capture state).
///
/// # Safety
/// `status` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(stream: *mut c_void, status: *mut c_int) -> CUresult {
    entry("cuStreamIsCapturing", || {
        // SAFETY: forwarded from the caller.
        in_context(|| unsafe { cudart::graphs::capture::cudaStreamIsCapturing(stream, status) })
    })
}

/// The context of `stream`: the current context when it is on the stream's device, else the
/// device's primary context (chevron's streams belong to a device; its contexts share them).
fn context_of(stream: *mut c_void) -> DriverResult<*mut c_void> {
    enter()?;
    let ordinal = cudart::state::ordinal_of(stream)?;
    match crate::context::current()? {
        Some(current) if current.ordinal == ordinal => Ok(crate::context::handle_of(&current)),
        _ => crate::context::primary_handle(ordinal),
    }
}

/// The context a stream belongs to.
#[no_mangle]
pub extern "C" fn cuStreamGetCtx(stream: *mut c_void, out: *mut *mut c_void) -> CUresult {
    entry("cuStreamGetCtx", || store(out, context_of(stream)?, "pctx"))
}

/// [`cuStreamGetCtx`], and no green context (chevron has none).
#[no_mangle]
pub extern "C" fn cuStreamGetCtx_v2(
    stream: *mut c_void,
    out: *mut *mut c_void,
    green: *mut *mut c_void,
) -> CUresult {
    entry("cuStreamGetCtx", || {
        let context = context_of(stream)?;
        if !green.is_null() {
            store(green, std::ptr::null_mut(), "pGreenCtx")?;
        }
        if !out.is_null() {
            store(out, context, "pCtx")?;
        }
        Ok(())
    })
}

/// The device a stream belongs to.
#[no_mangle]
pub extern "C" fn cuStreamGetDevice(stream: *mut c_void, out: *mut c_int) -> CUresult {
    entry("cuStreamGetDevice", || {
        enter()?;
        let ordinal = cudart::state::ordinal_of(stream)?;
        store(out, ordinal as c_int, "device")
    })
}
