//! Streams, host callbacks and events.
//!
//! A `cudaStream_t` wraps a chevron stream (see [`crate::state`]). Host functions
//! (`cudaLaunchHostFunc`, `cudaStreamAddCallback`) are queued in stream order and run on a
//! worker of the device (see [`in_stream_order`] for mirrored memory); on GPUs they are the
//! driver's host functions (`cuLaunchHostFunc`). A `cudaEvent_t` is a chevron token; an event
//! with timing is also a [`TimingMark`]: the driver's timing event on GPUs (`cuEventRecord`,
//! `cuEventElapsedTime`), the host clock read in stream order when the recorded work is done on
//! the CPU device. Recording never waits for the work. Priorities are the driver's
//! (`cuStreamCreateWithPriority`) on GPUs; the CPU device's range is 0..0.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use chevron::{Stream, TimingMark, Token};

use crate::errors::{
    cudaError_t, guard, CudaError, CudaResult, INVALID_RESOURCE_HANDLE, INVALID_VALUE, NOT_READY,
};
use crate::memory::store;
use crate::{mirror, state};

/// `cudaEventDisableTiming`.
const EVENT_DISABLE_TIMING: c_uint = 0x2;
/// `cudaStreamNonBlocking`.
const STREAM_NON_BLOCKING: c_uint = 0x1;
/// Every `cudaEvent*` creation flag: blocking sync, disable timing, interprocess.
const EVENT_FLAGS: c_uint = 0x1 | EVENT_DISABLE_TIMING | 0x4;
/// `cudaEventWaitExternal`, the one `cudaStreamWaitEvent` flag.
const EVENT_WAIT_EXTERNAL: c_uint = 0x1;

/// Fails with `cudaErrorInvalidValue` when `flags` has a bit outside `known`.
fn check_flags(flags: c_uint, known: c_uint, what: &str) -> CudaResult {
    if flags & !known != 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("{what} {flags:#x} has unknown bits {:#x}", flags & !known),
        ));
    }
    Ok(())
}

struct Event {
    token: Token,
    timing: bool,
    /// Where a timing event was last recorded (`None` before, or after a graph recorded it).
    mark: Option<TimingMark>,
}

static EVENTS: Mutex<Option<HashMap<usize, Event>>> = Mutex::new(None);

fn with_event<T>(event: *mut c_void, f: impl FnOnce(&mut Event) -> CudaResult<T>) -> CudaResult<T> {
    let mut events = state::lock(&EVENTS);
    let found = events.as_mut().and_then(|e| e.get_mut(&(event as usize)));
    match found {
        Some(state) => f(state),
        None => Err(CudaError::new(
            INVALID_RESOURCE_HANDLE,
            format!("event {event:p} is not a live cudaEvent_t"),
        )),
    }
}

/// The token of `event` (what a wait for it waits for).
pub(crate) fn event_token(event: *mut c_void) -> CudaResult<Token> {
    with_event(event, |e| Ok(e.token.clone()))
}

/// Records `event` at the current end of `stream` (with a timestamp for a timing event):
/// `cudaEventRecord` and a graph's event record node.
pub(crate) fn record_event(event: *mut c_void, stream: &Stream) -> CudaResult {
    let timing = with_event(event, |e| Ok(e.timing))?;
    let (token, mark) = if timing {
        let mark = stream.record_timing()?;
        (mark.token().clone(), Some(mark))
    } else {
        (stream.token(), None)
    };
    with_event(event, |e| {
        e.token = token;
        e.mark = mark;
        Ok(())
    })
}

fn create_stream(out: *mut *mut c_void, flags: c_uint, priority: Option<c_int>) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(INVALID_VALUE, "pStream is NULL"));
    }
    check_flags(flags, STREAM_NON_BLOCKING, "flags")?;
    let ordinal = state::current_ordinal();
    let device = &state::current()?.device;
    let (stream, priority) = match priority {
        Some(priority) => device.create_stream_with_priority(priority)?,
        None => (device.create_stream()?, 0),
    };
    let blocking = flags & STREAM_NON_BLOCKING == 0;
    let handle = state::add_stream(ordinal, stream, blocking, priority);
    store(out, handle, "pStream")
}

/// Creates a blocking stream.
#[no_mangle]
pub extern "C" fn cudaStreamCreate(stream: *mut *mut c_void) -> cudaError_t {
    guard("cudaStreamCreate", || create_stream(stream, 0, None))
}

/// Creates a stream; `cudaStreamNonBlocking` exempts it from the legacy stream's ordering.
#[no_mangle]
pub extern "C" fn cudaStreamCreateWithFlags(
    stream: *mut *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaStreamCreateWithFlags", || {
        create_stream(stream, flags, None)
    })
}

/// As [`cudaStreamCreateWithFlags`], with `priority` clamped to the device's range (as CUDA
/// clamps it): the driver schedules the stream's work by it on GPUs.
#[no_mangle]
pub extern "C" fn cudaStreamCreateWithPriority(
    stream: *mut *mut c_void,
    flags: c_uint,
    priority: c_int,
) -> cudaError_t {
    guard("cudaStreamCreateWithPriority", || {
        create_stream(stream, flags, Some(priority))
    })
}

/// Destroys a stream once its work is done (a capture in progress on it ends, unfinished).
#[no_mangle]
pub extern "C" fn cudaStreamDestroy(stream: *mut c_void) -> cudaError_t {
    guard("cudaStreamDestroy", || {
        state::remove_stream(stream)?;
        crate::capturing::forget(&[stream as usize]);
        Ok(())
    })
}

/// Waits for the stream's work and reports its faults.
#[no_mangle]
pub extern "C" fn cudaStreamSynchronize(stream: *mut c_void) -> cudaError_t {
    guard("cudaStreamSynchronize", || {
        crate::errors::check_sticky()?;
        state::plain_stream(stream)?.1.synchronize()?;
        mirror::pull_all()
    })
}

/// `cudaSuccess` when the stream's work is done, `cudaErrorNotReady` before.
#[no_mangle]
pub extern "C" fn cudaStreamQuery(stream: *mut c_void) -> cudaError_t {
    guard("cudaStreamQuery", || {
        crate::errors::check_sticky()?;
        if state::plain_stream(stream)?.1.token().is_done()? {
            Ok(())
        } else {
            Err(CudaError::new(NOT_READY, ""))
        }
    })
}

/// Makes later work on `stream` wait for `event`.
#[no_mangle]
pub extern "C" fn cudaStreamWaitEvent(
    stream: *mut c_void,
    event: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaStreamWaitEvent", || {
        check_flags(flags, EVENT_WAIT_EXTERNAL, "flags")?;
        if let Some(captured) = crate::capturing::event_wait(stream, event) {
            return captured;
        }
        let token = with_event(event, |e| Ok(e.token.clone()))?;
        state::submit_stream(stream)?.1.wait_for(&[&token])?;
        Ok(())
    })
}

/// A host function as `cudaLaunchHostFunc` takes it.
pub type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;
/// A stream callback as `cudaStreamAddCallback` takes it.
pub type StreamCallback = Option<unsafe extern "C" fn(*mut c_void, cudaError_t, *mut c_void)>;

/// Enqueues `host_fn(user_data)`, run on a host thread after the stream's earlier work and
/// before its later work; returns at once (CUDA: not called if earlier work faulted).
///
/// # Safety
/// `host_fn` is callable with `user_data`, from another thread.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchHostFunc(
    stream: *mut c_void,
    host_fn: HostFn,
    user_data: *mut c_void,
) -> cudaError_t {
    guard("cudaLaunchHostFunc", || {
        let function =
            host_fn.ok_or_else(|| CudaError::new(crate::errors::INVALID_VALUE, "fn is NULL"))?;
        if let Some(captured) = crate::capturing::host(stream, function, user_data) {
            return captured;
        }
        let user_data = user_data as usize;
        in_stream_order(stream, move |status| {
            if status.is_ok() {
                // SAFETY: the caller's guarantee.
                unsafe { function(user_data as *mut c_void) };
            }
        })
    })
}

/// Enqueues `callback(stream, status, user_data)` after the stream's earlier work, with the
/// error of that work if it faulted; returns at once.
///
/// # Safety
/// `callback` is callable with these arguments, from another thread.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamAddCallback(
    stream: *mut c_void,
    callback: StreamCallback,
    user_data: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    guard("cudaStreamAddCallback", || {
        let function = callback
            .ok_or_else(|| CudaError::new(crate::errors::INVALID_VALUE, "callback is NULL"))?;
        if flags != 0 {
            return Err(CudaError::new(
                crate::errors::INVALID_VALUE,
                format!("flags {flags} (must be 0)"),
            ));
        }
        let (handle, user_data) = (stream as usize, user_data as usize);
        in_stream_order(stream, move |status| {
            let status = match status {
                Ok(()) => 0,
                Err(error) => CudaError::from(error).code,
            };
            // SAFETY: the caller's guarantee.
            unsafe { function(handle as *mut c_void, status, user_data as *mut c_void) };
        })
    })
}

/// Runs `function` with the stream's status in stream order on a worker of the device. Where
/// host memory is mirrored (managed, pinned or registered memory), kernels' writes reach the
/// host only through a pull that synchronizes the device, which a worker cannot do while its
/// stream waits for it: then `function` runs on the caller once the earlier work is done.
fn in_stream_order(
    stream: *mut c_void,
    function: impl FnOnce(chevron::Result<()>) + Send + 'static,
) -> CudaResult {
    let (_, stream) = state::submit_stream(stream)?;
    if mirror::in_use() {
        let status = stream.synchronize();
        mirror::pull_all()?;
        function(status);
        return Ok(());
    }
    stream.launch_host_function(function)?;
    Ok(())
}

fn create_event(out: *mut *mut c_void, flags: c_uint) -> CudaResult {
    if out.is_null() {
        return Err(CudaError::new(
            crate::errors::INVALID_VALUE,
            "event is NULL",
        ));
    }
    check_flags(flags, EVENT_FLAGS, "flags")?;
    let event = Event {
        token: Token::ready(),
        timing: flags & EVENT_DISABLE_TIMING == 0,
        mark: None,
    };
    let key = Box::into_raw(Box::new(0u8)) as usize;
    state::lock(&EVENTS)
        .get_or_insert_with(HashMap::new)
        .insert(key, event);
    store(out, key as *mut c_void, "event")
}

/// Creates an event with timing.
#[no_mangle]
pub extern "C" fn cudaEventCreate(event: *mut *mut c_void) -> cudaError_t {
    guard("cudaEventCreate", || create_event(event, 0))
}

/// Creates an event (`cudaEventDisableTiming` makes recording free of waiting).
#[no_mangle]
pub extern "C" fn cudaEventCreateWithFlags(event: *mut *mut c_void, flags: c_uint) -> cudaError_t {
    guard("cudaEventCreateWithFlags", || create_event(event, flags))
}

/// Destroys an event.
#[no_mangle]
pub extern "C" fn cudaEventDestroy(event: *mut c_void) -> cudaError_t {
    guard("cudaEventDestroy", || {
        let removed = state::lock(&EVENTS)
            .as_mut()
            .and_then(|e| e.remove(&(event as usize)));
        match removed {
            Some(_) => {
                // SAFETY: the key is the address of the `Box<u8>` made by `create_event`.
                drop(unsafe { Box::from_raw(event as *mut u8) });
                Ok(())
            }
            None => Err(CudaError::new(
                INVALID_RESOURCE_HANDLE,
                format!("event {event:p} is not a live cudaEvent_t"),
            )),
        }
    })
}

/// Marks the work submitted to `stream` so far.
#[no_mangle]
pub extern "C" fn cudaEventRecord(event: *mut c_void, stream: *mut c_void) -> cudaError_t {
    guard("cudaEventRecord", || {
        if let Some(captured) = crate::capturing::event_record(event, stream) {
            return captured;
        }
        let stream = state::submit_stream(stream)?.1;
        record_event(event, &stream)
    })
}

/// Waits for the event's work.
#[no_mangle]
pub extern "C" fn cudaEventSynchronize(event: *mut c_void) -> cudaError_t {
    guard("cudaEventSynchronize", || {
        // A timing event is complete once the device took its timestamp, after its work.
        let (token, mark) = with_event(event, |e| Ok((e.token.clone(), e.mark.clone())))?;
        match mark {
            Some(mark) => mark.wait()?,
            None => token.wait()?,
        }
        mirror::pull_all()
    })
}

/// `cudaSuccess` when the event's work is done, `cudaErrorNotReady` before.
#[no_mangle]
pub extern "C" fn cudaEventQuery(event: *mut c_void) -> cudaError_t {
    guard("cudaEventQuery", || {
        let (token, mark) = with_event(event, |e| Ok((e.token.clone(), e.mark.clone())))?;
        let done = match mark {
            Some(mark) => mark.is_reached()?,
            None => token.is_done()?,
        };
        if done {
            Ok(())
        } else {
            Err(CudaError::new(NOT_READY, ""))
        }
    })
}

/// Milliseconds between two recorded timing events; `cudaErrorNotReady` while either has not
/// completed.
#[no_mangle]
pub extern "C" fn cudaEventElapsedTime(
    ms: *mut f32,
    start: *mut c_void,
    end: *mut c_void,
) -> cudaError_t {
    guard("cudaEventElapsedTime", || {
        if ms.is_null() {
            return Err(CudaError::new(crate::errors::INVALID_VALUE, "ms is NULL"));
        }
        let first = with_event(start, |e| Ok(e.mark.clone()))?;
        let second = with_event(end, |e| Ok(e.mark.clone()))?;
        let (Some(first), Some(second)) = (first, second) else {
            return Err(CudaError::new(
                INVALID_RESOURCE_HANDLE,
                "both events must be recorded and created with timing",
            ));
        };
        match second.elapsed_ms_since(&first)? {
            Some(elapsed) => store(ms, elapsed, "ms"),
            None => Err(CudaError::new(NOT_READY, "")),
        }
    })
}
