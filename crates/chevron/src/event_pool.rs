//! The per-device pool of events that back tokens.
//!
//! Events are created ahead of need (a few with every stream, and in batches when the pool runs
//! dry) and recycled once the work they marked is complete, so that ordering work across
//! streams never creates events on the launch path.

use std::sync::{Arc, Mutex};

use crate::backend;
use crate::error::Result;

/// How many events each new stream adds to its device's pool.
const EVENTS_PER_STREAM: usize = 2;
/// How many events are created at once when the pool is empty.
const REFILL_BATCH: usize = 8;

/// Events of one device, ready to be recorded.
pub(crate) struct EventPool {
    free: Mutex<Vec<Arc<dyn backend::Event>>>,
}

impl EventPool {
    pub(crate) fn new() -> EventPool {
        EventPool {
            free: Mutex::new(Vec::new()),
        }
    }

    /// Adds events for a new stream of `device`.
    pub(crate) fn grow_for_stream(&self, device: &dyn backend::Device) -> Result<()> {
        let mut created = Vec::with_capacity(EVENTS_PER_STREAM);
        for _ in 0..EVENTS_PER_STREAM {
            created.push(device.create_event()?);
        }
        self.lock().extend(created);
        Ok(())
    }

    /// Takes an event, creating a batch first if the pool is empty.
    pub(crate) fn take(&self, device: &dyn backend::Device) -> Result<Arc<dyn backend::Event>> {
        if let Some(event) = self.lock().pop() {
            return Ok(event);
        }
        let mut created = Vec::with_capacity(REFILL_BATCH);
        for _ in 0..REFILL_BATCH {
            created.push(device.create_event()?);
        }
        let event = created.pop().expect("REFILL_BATCH is positive");
        self.lock().extend(created);
        Ok(event)
    }

    /// Returns an event whose recorded work is complete.
    pub(crate) fn give_back(&self, event: Arc<dyn backend::Event>) {
        self.lock().push(event);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<dyn backend::Event>>> {
        self.free
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
