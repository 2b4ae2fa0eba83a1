//! Streams and events of the `mgpu*` ABI, and `mgpuSetDefaultDevice`.
//!
//! A `CUstream` is a chevron stream; a `CUevent` holds the token of its last record (no backend
//! event until a stream or the host waits on it, and then one from the device's pool). So an
//! event destroyed right after `mgpuStreamWaitEvent` leaves the wait in place, and streams
//! that are never destroyed cost nothing but their worker.
//!
//! LLVM 22.1.8 passes a stream where an event is expected when a `gpu.async.token` crosses an
//! `async.execute` region (llvm-project issue #170833): chevron tells the two apart by their
//! handle tags and does what was meant (wait for / synchronize the stream's work so far; a
//! destroy of such a "event" does nothing).

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use chevron::{Stream, Token};

use super::host_memory;
use super::{default_device, guard, lookup, set_default_device, EVENTS, STREAMS};
use crate::error::{CapiError, CapiResult};
use crate::handles::Kind;
use crate::status::chevron_status;

/// A `CUevent`: the token of its last record.
#[derive(Default)]
pub struct MgpuEvent {
    recorded: Mutex<Option<Token>>,
}

impl MgpuEvent {
    fn token(&self) -> Token {
        self.recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_else(Token::ready)
    }
}

/// What a handle passed as a `CUevent` stands for.
fn event_token(event: *mut c_void) -> CapiResult<Token> {
    if Kind::of_handle(event as usize as u64) == Some(Kind::MgpuStream) {
        // A stream passed as an event: its work so far.
        return Ok(lookup(&STREAMS, event)?.token());
    }
    Ok(lookup(&EVENTS, event)?.token())
}

/// Streams whose handles were destroyed, kept for reuse: MLIR lowers every `gpu.wait async`
/// to `mgpuStreamCreate` and every final `gpu.wait` to `mgpuStreamDestroy`, so a loop gets a
/// fresh stream per iteration. Reusing an idle one keeps per-stream state across iterations
/// (automatic graph replay sees the iteration's launches repeat) and saves a worker thread
/// per iteration on the CPU device. Only idle streams are reused, so no new work is ordered
/// after old work.
static IDLE_STREAMS: Mutex<Vec<Stream>> = Mutex::new(Vec::new());
/// The most destroyed streams kept.
const IDLE_STREAMS_KEPT: usize = 8;

/// An idle kept stream of `device`, if any.
fn reuse_idle(device: &chevron::Device) -> Option<Stream> {
    let mut idle = IDLE_STREAMS.lock().unwrap_or_else(|e| e.into_inner());
    let found = idle.iter().position(|stream| {
        stream.device().same_device(device) && stream.token().is_done().unwrap_or(false)
    })?;
    Some(idle.swap_remove(found))
}

/// Creates a stream on the default device; NULL on failure.
#[no_mangle]
pub extern "C" fn mgpuStreamCreate() -> *mut c_void {
    guard("mgpuStreamCreate", std::ptr::null_mut(), || {
        let device = default_device()?;
        let stream = match reuse_idle(&device) {
            Some(stream) => stream,
            None => device.create_stream()?,
        };
        Ok(STREAMS.insert(stream) as usize as *mut c_void)
    })
}

/// Destroys a stream handle; work already submitted still runs.
#[no_mangle]
pub extern "C" fn mgpuStreamDestroy(stream: *mut c_void) {
    guard("mgpuStreamDestroy", (), || {
        let handle = stream as usize as u64;
        let stream = STREAMS.remove(handle).map_err(|e| {
            CapiError::new(
                chevron_status::CHEVRON_ERROR_INVALID_HANDLE,
                e.describe(Kind::MgpuStream, handle),
            )
        })?;
        let mut idle = IDLE_STREAMS.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() == IDLE_STREAMS_KEPT {
            idle.remove(0);
        }
        idle.push(stream);
        Ok(())
    })
}

/// Waits until the work submitted to `stream` is done.
#[no_mangle]
pub extern "C" fn mgpuStreamSynchronize(stream: *mut c_void) {
    guard("mgpuStreamSynchronize", (), || {
        let stream: Stream = lookup(&STREAMS, stream)?;
        let result = stream.synchronize();
        host_memory::reconcile();
        result?;
        Ok(())
    })
}

/// Makes later work on `stream` wait for the work recorded by `event`.
#[no_mangle]
pub extern "C" fn mgpuStreamWaitEvent(stream: *mut c_void, event: *mut c_void) {
    guard("mgpuStreamWaitEvent", (), || {
        let stream: Stream = lookup(&STREAMS, stream)?;
        let token = event_token(event)?;
        stream.wait_for(&[&token])?;
        Ok(())
    })
}

/// Creates an event (nothing recorded: already complete).
#[no_mangle]
pub extern "C" fn mgpuEventCreate() -> *mut c_void {
    guard("mgpuEventCreate", std::ptr::null_mut(), || {
        Ok(EVENTS.insert(Arc::new(MgpuEvent::default())) as usize as *mut c_void)
    })
}

/// Destroys an event; waits already made on it are unaffected.
#[no_mangle]
pub extern "C" fn mgpuEventDestroy(event: *mut c_void) {
    guard("mgpuEventDestroy", (), || {
        let handle = event as usize as u64;
        if Kind::of_handle(handle) == Some(Kind::MgpuStream) {
            // A stream passed as an event (see the module docs): nothing to destroy.
            return Ok(());
        }
        EVENTS.remove(handle).map_err(|e| {
            CapiError::new(
                chevron_status::CHEVRON_ERROR_INVALID_HANDLE,
                e.describe(Kind::MgpuEvent, handle),
            )
        })?;
        Ok(())
    })
}

/// Waits on the host until the work recorded by `event` is done.
#[no_mangle]
pub extern "C" fn mgpuEventSynchronize(event: *mut c_void) {
    guard("mgpuEventSynchronize", (), || {
        let token = event_token(event)?;
        let result = token.wait();
        host_memory::reconcile();
        result?;
        Ok(())
    })
}

/// Records in `event` the work submitted to `stream` so far.
#[no_mangle]
pub extern "C" fn mgpuEventRecord(event: *mut c_void, stream: *mut c_void) {
    guard("mgpuEventRecord", (), || {
        let event = lookup(&EVENTS, event)?;
        let stream: Stream = lookup(&STREAMS, stream)?;
        *event.recorded.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream.token());
        Ok(())
    })
}

/// Makes device `device` (an index into the devices `CHEVRON_DEVICES` selects) the one later
/// modules, streams and allocations use. Process-wide (upstream: per thread).
#[no_mangle]
pub extern "C" fn mgpuSetDefaultDevice(device: i32) {
    guard("mgpuSetDefaultDevice", (), || {
        let index = usize::try_from(device)
            .map_err(|_| CapiError::invalid(format!("device {device} is negative")))?;
        set_default_device(index)
    })
}
