//! Per-thread event buffers: each thread appends to its own buffer (an uncontended lock) and
//! hands it to the trace file (see `sink`) once it holds [`BATCH`] events or its oldest event
//! is [`BATCH_AGE`] old; the buffers are registered once per thread and drained together when
//! the trace stops.

use std::cell::Cell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::lock;

/// Where an event is drawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Track {
    /// A host thread: its index in order of first event, and its name.
    Host { index: u64, name: String },
    /// A stream of a device.
    Stream { device: String, stream: u64 },
    /// A worker of a device running work (a CPU device's stream thread, and the address of its
    /// stream's timeline), until matched to its stream.
    Worker {
        device: String,
        name: String,
        timeline: usize,
    },
    /// The work of a stream as the device ran it (device-side durations).
    Device { device: String, stream: u64 },
    /// The thread blocks of instrumented kernels of a device.
    Blocks { device: String },
}

/// One recorded call or piece of device work.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub name: String,
    pub category: &'static str,
    pub track: Track,
    /// Nanoseconds since the trace started.
    pub start_ns: u64,
    pub duration_ns: u64,
    pub args: serde_json::Map<String, serde_json::Value>,
    /// The token this event's work completes: (stream id, sequence number).
    pub completes: Option<(u64, u64)>,
    /// The tokens this event waited for.
    pub waits_for: Vec<(u64, u64)>,
}

type Buffer = Arc<Mutex<Vec<Event>>>;

static BUFFERS: Mutex<Vec<Buffer>> = Mutex::new(Vec::new());

thread_local! {
    static OWN: Buffer = {
        let buffer = Buffer::default();
        lock(&BUFFERS).push(Arc::clone(&buffer));
        buffer
    };
}

/// The events a thread buffers before they are written.
pub(super) const BATCH: usize = 1024;

/// The longest an event waits in a buffer before its batch is written (at the thread's next
/// event), so that a program that crashes leaves most of its trace.
const BATCH_AGE: Duration = Duration::from_millis(100);

thread_local! {
    /// When this thread's buffer got its first event since the last batch.
    static OLDEST: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Appends `event` to this thread's buffer; writes the buffer out when it is full or old.
pub(crate) fn record(event: Event) {
    // During thread teardown the buffer may be gone: the event is dropped.
    let batch = OWN.try_with(|own| {
        let mut buffer = lock(own);
        buffer.push(event);
        let now = Instant::now();
        let oldest = OLDEST.try_with(Cell::get).ok().flatten();
        let old = oldest.is_some_and(|at| now.duration_since(at) >= BATCH_AGE);
        if buffer.len() >= BATCH || old {
            let _ = OLDEST.try_with(|o| o.set(None));
            Some(std::mem::take(&mut *buffer))
        } else {
            if oldest.is_none() {
                let _ = OLDEST.try_with(|o| o.set(Some(now)));
            }
            None
        }
    });
    if let Ok(Some(batch)) = batch {
        super::sink::write(batch);
    }
}

/// Every buffered event, buffers emptied.
pub(super) fn drain() -> Vec<Event> {
    let buffers = lock(&BUFFERS);
    buffers
        .iter()
        .flat_map(|b| std::mem::take(&mut *lock(b)))
        .collect()
}

/// Discards every buffered event.
pub(super) fn clear() {
    for buffer in lock(&BUFFERS).iter() {
        lock(buffer).clear();
    }
}
