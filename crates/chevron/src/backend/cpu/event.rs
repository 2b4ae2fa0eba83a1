//! CPU events: a recorded point (stream timeline, sequence number).
//!
//! Recording costs no queue entry: the event simply remembers how much work its stream had been
//! given. It is complete once the stream's worker has finished that much. A stream that waits on
//! an event copies the point at the time of the wait, so recording the event again or dropping
//! it afterwards does not change the wait; the point may belong to another CPU device.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::backend::Event;
use crate::error::{Error, Result};

use super::timeline::Timeline;

/// An event of a CPU device.
#[derive(Default)]
pub struct CpuEvent {
    point: Mutex<Option<(Arc<Timeline>, u64)>>,
}

impl CpuEvent {
    /// A new event; it counts as done until recorded.
    pub(crate) fn new() -> CpuEvent {
        CpuEvent::default()
    }

    /// The CPU event behind `event`, or an error naming `call` if it belongs to another backend.
    pub(crate) fn downcast<'a>(event: &'a dyn Event, call: &'static str) -> Result<&'a CpuEvent> {
        event
            .as_any()
            .downcast_ref::<CpuEvent>()
            .ok_or_else(|| Error::InvalidValue {
                call,
                message: "the event does not belong to a CPU device".into(),
            })
    }

    /// Records the point `seq` of `timeline`, replacing any earlier point.
    pub(crate) fn set(&self, timeline: Arc<Timeline>, seq: u64) {
        *self.lock() = Some((timeline, seq));
    }

    /// The recorded point, if any.
    pub(crate) fn point(&self) -> Option<(Arc<Timeline>, u64)> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Arc<Timeline>, u64)>> {
        // Nothing panics while this lock is held; recover from poisoning regardless.
        self.point.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Event for CpuEvent {
    fn query(&self) -> Result<bool> {
        match self.point() {
            None => Ok(true),
            Some((timeline, seq)) => timeline.status(seq).map_err(|fault| fault.to_error()),
        }
    }

    fn synchronize(&self) -> Result<()> {
        match self.point() {
            None => Ok(()),
            Some((timeline, seq)) => timeline.wait_for(seq).map_err(|fault| fault.to_error()),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
