//! What a program asks of a stream it holds (`cudaStreamGetFlags`, `cudaStreamGetDevice`,
//! `cudaStreamGetId`) and `cudaEventRecordWithFlags`, with their `_ptsz` forms, and the calling
//! thread's stream capture mode (`cudaThreadExchangeStreamCaptureMode`).
//!
//! The answers come from the runtime's own record of the stream ([`state::StreamHandle`]):
//! a created stream's flags, device and id; the legacy stream is blocking (flags 0), of the
//! current device, with the device ordinal as its id; the calling thread's per-thread stream
//! is blocking too (CUDA: it synchronizes with the legacy stream) and gets an id of its own on
//! the first query. A capturing stream answers as any other.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};

use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::launch::per_thread_default as pt;
use crate::memory::store;
use crate::state::{self, STREAM_LEGACY, STREAM_PER_THREAD};

/// `cudaStreamNonBlocking`.
const NON_BLOCKING: c_uint = 0x1;
/// `cudaEventRecordExternal`: in a capture, an event record node instead of a join point.
const RECORD_EXTERNAL: c_uint = 0x1;

thread_local! {
    /// The ids of this thread's per-thread streams, by device ordinal.
    static PER_THREAD_IDS: RefCell<HashMap<usize, u64>> = RefCell::new(HashMap::new());
    /// This thread's stream capture mode (`cudaStreamCaptureModeGlobal` at first).
    static CAPTURE_MODE: Cell<c_int> = const { Cell::new(0) };
}

/// The flags of `stream` as `cudaStreamCreateWithFlags` takes them.
fn flags_of(stream: *mut c_void) -> CudaResult<c_uint> {
    match stream as usize {
        0 | STREAM_LEGACY | STREAM_PER_THREAD => Ok(0),
        _ => Ok(if state::stream_handle(stream)?.blocking {
            0
        } else {
            NON_BLOCKING
        }),
    }
}

/// The id of `stream`: unique for the program's life.
fn id_of(stream: *mut c_void) -> CudaResult<u64> {
    match stream as usize {
        0 | STREAM_LEGACY => {
            state::current()?;
            Ok(state::current_ordinal() as u64)
        }
        STREAM_PER_THREAD => {
            state::current()?;
            let ordinal = state::current_ordinal();
            Ok(PER_THREAD_IDS.with(|ids| {
                *ids.borrow_mut()
                    .entry(ordinal)
                    .or_insert_with(state::next_stream_id)
            }))
        }
        _ => Ok(state::stream_handle(stream)?.id),
    }
}

/// The flags `stream` was created with (`cudaStreamDefault` or `cudaStreamNonBlocking`).
#[no_mangle]
pub extern "C" fn cudaStreamGetFlags(stream: *mut c_void, flags: *mut c_uint) -> cudaError_t {
    guard("cudaStreamGetFlags", || {
        if flags.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "flags is NULL"));
        }
        store(flags, flags_of(stream)?, "flags")
    })
}

/// The device `stream` belongs to (the current device for the default streams).
#[no_mangle]
pub extern "C" fn cudaStreamGetDevice(stream: *mut c_void, device: *mut c_int) -> cudaError_t {
    guard("cudaStreamGetDevice", || {
        if device.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "device is NULL"));
        }
        if matches!(stream as usize, 0 | STREAM_LEGACY | STREAM_PER_THREAD) {
            state::current()?;
        }
        store(device, state::ordinal_of(stream)? as c_int, "device")
    })
}

/// The id of `stream`, unique for the life of the program.
#[no_mangle]
pub extern "C" fn cudaStreamGetId(stream: *mut c_void, id: *mut u64) -> cudaError_t {
    guard("cudaStreamGetId", || {
        if id.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "streamId is NULL"));
        }
        store(id, id_of(stream)?, "streamId")
    })
}

/// `cudaEventRecord` with `flags`: `cudaEventRecordDefault` records as `cudaEventRecord`;
/// `cudaEventRecordExternal` adds an event record node to the capture of a capturing stream,
/// and is invalid outside a capture (`cudaErrorInvalidValue`, as CUDA documents the flag).
#[no_mangle]
pub extern "C" fn cudaEventRecordWithFlags(
    event: *mut c_void,
    stream: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    if flags == 0 {
        return crate::streams::cudaEventRecord(event, stream);
    }
    guard("cudaEventRecordWithFlags", || {
        if flags != RECORD_EXTERNAL {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("flags {flags:#x} (cudaEventRecordDefault or cudaEventRecordExternal)"),
            ));
        }
        crate::streams::event_token(event)?;
        match crate::capturing::event_record_node(event, stream) {
            Some(result) => result,
            None => {
                state::ordinal_of(stream)?;
                Err(CudaError::new(
                    INVALID_VALUE,
                    "cudaEventRecordExternal outside a stream capture",
                ))
            }
        }
    })
}

/// Exchanges the calling thread's stream capture mode with `*mode` (`cudaStreamCaptureMode`:
/// global, thread-local or relaxed), as code that must make a potentially unsafe call during
/// another thread's capture does. chevron's capture takes every mode alike (see
/// `cudaStreamBeginCapture`), so the mode is kept and handed back.
///
/// # Safety
/// `mode` is NULL or points to a readable and writable `cudaStreamCaptureMode`.
#[no_mangle]
pub unsafe extern "C" fn cudaThreadExchangeStreamCaptureMode(mode: *mut c_int) -> cudaError_t {
    guard("cudaThreadExchangeStreamCaptureMode", || {
        if mode.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "mode is NULL"));
        }
        // SAFETY: the caller's guarantee.
        let wanted = unsafe { mode.read_unaligned() };
        // Any value is exchanged unchecked, as NVIDIA's runtime does (an H200 accepted 7).
        let previous = CAPTURE_MODE.with(|current| current.replace(wanted));
        store(mode, previous, "mode")
    })
}

/// [`cudaStreamGetFlags`] with the per-thread default stream for NULL.
#[no_mangle]
pub extern "C" fn cudaStreamGetFlags_ptsz(stream: *mut c_void, flags: *mut c_uint) -> cudaError_t {
    cudaStreamGetFlags(pt(stream), flags)
}

/// [`cudaStreamGetDevice`] with the per-thread default stream for NULL.
#[no_mangle]
pub extern "C" fn cudaStreamGetDevice_ptsz(stream: *mut c_void, device: *mut c_int) -> cudaError_t {
    cudaStreamGetDevice(pt(stream), device)
}

/// [`cudaStreamGetId`] with the per-thread default stream for NULL.
#[no_mangle]
pub extern "C" fn cudaStreamGetId_ptsz(stream: *mut c_void, id: *mut u64) -> cudaError_t {
    cudaStreamGetId(pt(stream), id)
}

/// [`cudaEventRecordWithFlags`] with the per-thread default stream for NULL.
#[no_mangle]
pub extern "C" fn cudaEventRecordWithFlags_ptsz(
    event: *mut c_void,
    stream: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    cudaEventRecordWithFlags(event, pt(stream), flags)
}
